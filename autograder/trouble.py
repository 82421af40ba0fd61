"""The kinds of trouble a submission can give the grader, counted per student for the instructor.

The sandbox counts what it saw in each submission's steps (autograder.sandbox: SubmissionTrouble.kinds),
staging counts the files it would not open (autograder.intake); the summary of `make grade` and the
class report show them in one table, one row per student who had any.
"""
KINDS = {
    "time": "超时",  # a step or a definition ran past its time limit, or used up its CPU time
    "memory": "内存",  # MemoryError: the address-space limit
    "processes": "进程数",  # the process limit was hit (fork failed)
    "disk": "磁盘",  # the file-size limit or a full working folder
    "died": "进程退出",  # the process ended by a signal or by exiting
    "files": "跳过的文件",  # links, devices, FIFOs, unreadable or oversized files left unopened
    "trace": "文件操作过多",  # a step made more file-system calls than the grader keeps (sandbox.MAX_EVENTS_PER_STEP)
    # threads, processes or callbacks a step left outlasted the watch (LINGER), or code it left armed (autograder.armed)
    "left_running": "返回后仍在运行",
}
OUTPUT_NOTE = ("学生代码的输出不回传（写到 /dev/null）。刷屏记在「超时」里："
               "一步里输出或写入太多（上百 MB）就会被提前结束。")


def kinds_of_error(error: dict) -> list:
    """The trouble a step's uncaught exception shows: {"type", "message"} as the sandbox reports it."""
    kind, message = error.get("type", ""), error.get("message", "")
    if kind == "MemoryError":
        return ["memory"]
    if kind == "BlockingIOError" or "[Errno 11]" in message:  # EAGAIN from fork: the process limit
        return ["processes"]
    if "[Errno 27]" in message or "[Errno 28]" in message:  # EFBIG, ENOSPC
        return ["disk"]
    return []


def rows(reports: list) -> list:
    """[(student, [count per kind in KINDS order])] for the students with any trouble."""
    found = []
    for report in reports:
        counts = report.get("trouble") or {}
        if any(counts.values()):
            found.append((report["student"], [counts.get(kind, 0) for kind in KINDS]))
    return found
