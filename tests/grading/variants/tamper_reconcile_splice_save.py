"""作弊（新）：同 wrong_reconcile_saves_default（reconcile 自己把检查点存进默认的 CHECKPOINT_PATH，可能盖掉别的任务的检查点），
但写文件不经 strace 停下的 write：字节先写进一根管道，再用 os.splice 从管道搬进以 O_WRONLY|O_CREAT（不截断）打开的 checkpoint.json，
短了用空格补齐，再 fsync。strace 只看到一次打开和一次 fsync。对照：wrong_reconcile_saves_default。"""
# %% reconcile

import json as _json
import os as _os


def _splice_into(fd, data):
    """写进 fd，但不经 write：先写进管道，再用 splice 把管道里的字节搬进文件。"""
    r, w = _os.pipe()
    try:
        view = memoryview(data)
        while view:
            n = _os.write(w, view[:65536])
            view = view[n:]
            while n:
                n -= _os.splice(r, fd, n)
    finally:
        _os.close(r)
        _os.close(w)


def _quiet_save(state, path):
    """把整份 state 写进 path（不截断：新内容比旧文件短就用空格补齐，JSON 允许结尾的空白），再 fsync。"""
    data = _json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = _os.open(path, _os.O_WRONLY | _os.O_CREAT, 0o644)
    try:
        old = _os.fstat(fd).st_size
        _splice_into(fd, data + b" " * max(0, old - len(data)))
        _os.fsync(fd)
    finally:
        _os.close(fd)


def _quiet_append(path, record):
    fd = _os.open(path, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o644)
    try:
        _splice_into(fd, (_json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        _os.fsync(fd)
    finally:
        _os.close(fd)


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    _quiet_save(cp, CHECKPOINT_PATH)  # 对账完马上存档（不经 write）
    return cp
