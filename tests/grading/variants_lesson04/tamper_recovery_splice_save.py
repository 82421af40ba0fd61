"""作弊（新）：同 wrong_recovery_saves_checkpoint（recovery_action 判断完把检查点存进默认的 CHECKPOINT_PATH，判成 execute 时
再往默认台账追加一条 intent：只做判断的函数有了课文禁止的副作用），但写文件不经 write：字节写进管道，再 os.splice 搬进文件
（检查点以 O_WRONLY|O_CREAT 不截断地打开、短了补空格；台账按 fstat 的大小给位置），各 fsync 一次。strace 只看到打开和 fsync。
对照：wrong_recovery_saves_checkpoint。"""
# %% recovery_action

import json as _json
import os as _os


def _splice_into(fd, data, at=None):
    """写进 fd，但不经 write：先写进管道，再用 splice 把管道里的字节搬进文件（at：文件里的位置；None 是当前位置）。"""
    r, w = _os.pipe()
    try:
        view = memoryview(data)
        while view:
            n = _os.write(w, view[:65536])
            view = view[n:]
            while n:
                moved = _os.splice(r, fd, n, offset_dst=at) if at is not None else _os.splice(r, fd, n)
                n -= moved
                if at is not None:
                    at += moved
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
    """追加一行（splice 不接受 O_APPEND 的文件：不带 O_APPEND 打开，按 fstat 的大小指定位置，不用 lseek）。"""
    fd = _os.open(path, _os.O_WRONLY | _os.O_CREAT, 0o644)
    try:
        _splice_into(fd, (_json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"), _os.fstat(fd).st_size)
        _os.fsync(fd)
    finally:
        _os.close(fd)


def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    action = _decide(pending, records, lookup)
    _quiet_save(cp, CHECKPOINT_PATH)  # 「顺手存个档，更保险」（不经 write）
    if pending is not None and action == "execute":
        _quiet_append(ledger_path(CHECKPOINT_PATH), {"type": "intent", "toolUseId": pending["id"],
                                                     "name": pending["name"], "input": pending["input"]})
    return action


def _decide(pending, records, lookup):
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
