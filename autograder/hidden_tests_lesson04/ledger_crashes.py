"""Power cuts while a step writes a ledger: every state autograder.crash_states allows, read back.

The model is lesson 3's (autograder.crash_states, through autograder/hidden_tests/crashes.py's
`file_system`), applied to the ledger's file-system calls as strace recorded them, however the
code made them. A state is read back with the course's read_ledger: half a record at the end is
an append that never returned and reads as not written; anything else that is not whole records
is an error.
"""
import json
import os
from collections import Counter

from autograder.hidden_tests.crashes import describe, file_system, files_given, run_goes_on, step_of

from .helpers import records_of_each


def cuts(outcome, relative: str, step: int) -> list:
    """(kind, when, contents) for step `step` of the outcome, in the order things happened (`moments` without the
    step's start)."""
    return [cut for cut in moments(outcome, relative, step) if cut[0] != "start"]


def moments(outcome, relative: str, step: int) -> list:
    """(kind, when, contents) for step `step` of the outcome, in the order things happened: "start" before its first
    recorded call,
    "call" after each of its recorded file-system calls, "tool" at each of its tool calls (the grader
    got the request: the calls logged before it had been made), "end" once the step has returned, and again
    after each call that a thread or process it left behind made after that, and once all is over. A file the grader
    removed as a step began (`removals`) is gone from then on.
    `contents` is the set of what a power cut then could leave at `relative` (None: no file)."""
    target = os.path.join(outcome.workdir, relative)
    fs = file_system(files_given(outcome))
    events = [(e["at"], 0, "call", e) for e in outcome.fs_events if step_of(outcome, e) <= step]
    events += [(c["at"], c["seq"], "tool", c) for c in outcome.tool_calls if c["step"] == step]
    events += [(at, -1, "removed", record) for at, record in removals(outcome, step)]
    if step < len(outcome.returned_at) and outcome.returned_at[step] is not None:
        events.append((outcome.returned_at[step], float("inf"), "returned", {}))
    found, returned = [], False
    events.sort(key=lambda moment: moment[:2])
    for number, (_, _, kind, record) in enumerate(events):
        if kind == "removed":
            fs.apply(record)
            continue
        if kind == "call":
            record = {**record, "step": step_of(outcome, record)}
        if not found and (kind != "call" or record["step"] == step):
            found.append(("start", "在这一步开始之前", fs.after_power_cut(target)))
        if kind == "returned":
            returned = True
            found.append(("end", "在函数返回的那一刻", fs.after_power_cut(target)))
        elif kind == "call":
            fs.apply(record)
            following = events[number + 1] if number + 1 < len(events) else None
            if record["step"] != step or (following and following[2] == "call" and run_goes_on(
                    record, {**following[3], "step": step_of(outcome, following[3])})):
                continue
            if returned:
                found.append(("end", f"在函数返回之后，它留下的线程或进程「{describe(record, outcome.workdir)}」之后",
                              fs.after_power_cut(target)))
            else:
                found.append(("call", f"在「{describe(record, outcome.workdir)}」之后", fs.after_power_cut(target)))
        else:
            found.append(("tool", f"在执行 {record.get('name')} 的那一刻", fs.after_power_cut(target)))
    if not found:
        found.append(("start", "在这一步开始之前", fs.after_power_cut(target)))
    found.append(("end", "在函数返回之后", fs.after_power_cut(target)))
    return found


def removals(outcome, step: int) -> list:
    """(at, record) of each file the grader removed (a None in Scenario.files_before) as step `step` or an earlier one
    began: strace does not see it, the model applies it there (durable at once, as the grader's own change)."""
    return [(outcome.started_at[index], {"op": "remove", "path": os.path.join(outcome.workdir, relative)})
            for index, changes in outcome.scenario.files_before.items()
            if index <= step and index < len(outcome.started_at) and outcome.started_at[index] is not None
            for relative, content in changes.items() if content is None]


FOLDER_ADVICE = "这次追加新建了台账文件：文件的名字记在文件夹里，还要 fsync 所在的文件夹，断电后文件才一定还在"
LOSS_ADVICE = ("台账只追加，已经落盘的记录一条也不能丢：读台账时只能截掉末尾那半行（按字节找到最后一个换行，os.ftruncate 到"
               "它后面、换行留着，再 fsync，课程的 read_ledger 就是这样做的），不能按字符数截，也不能把整本台账清空重写——"
               "重写到一半断电，记录就全没了，恢复代码会把做过的调用当成从没开始、再做一次")
LINE_BREAK_ADVICE = ("截断停在了最后一条完整记录末尾的换行之前，把这个换行也截掉了：这条记录成了末尾的「半行」，下次读台账时"
                     "被当成没写完的扔掉，下一条追加的记录也会接在它的同一行上。换行是记录的一部分：要截到最后一个换行的后面，"
                     "只截掉它后面的半行")


def first_loss(found: list) -> str | None:
    """The first of these `moments` at which a power cut could leave the ledger without a record that was already
    durable (in every state a power cut could leave at an earlier moment, the step's start included), or
    unreadable: what happened, in the student's terms, and what to do instead; None if there is none. A step that
    only appends never loses one; one that rewrites the ledger in place (to drop a torn last line, say) has a moment
    the file is empty, and one that cuts the torn line off one byte short leaves the last whole record without its
    line break (the file as it was before that line break)."""
    read = records_of_each({content for _, _, contents in found for content in contents})
    durable, seen = None, set()
    for _, when, contents in found:
        ordered = sorted(contents, key=lambda c: (c is not None, len(c or b""), c or b""))
        held = [Counter(json.dumps(r, sort_keys=True) for r in read[c] or []) for c in ordered]
        for state, content in zip(held, ordered):
            if durable and (read[content] is None or durable - state):
                kept = "读不出来了" if read[content] is None else f"只剩 {sum((durable & state).values())} 条"
                cut_line_break = content and any(earlier.startswith(content + b"\n") for earlier in seen)
                return (f"{when}断电，台账里之前已经落盘的 {sum(durable.values())} 条记录{kept}。"
                        f"{LINE_BREAK_ADVICE if cut_line_break else LOSS_ADVICE}")
        seen.update(c for c in contents if c is not None)
        durable = held[0]
        for state in held[1:]:
            durable &= state
    return None
