"""作弊（新）：同 wrong_agent_outcome_after_save_b（outcome 在存档点 B 之后才追加：两者之间断电留下半行，没人截掉，台账坏掉），
但这次追加不经 write：一行 JSON 先写进管道，再 os.splice 搬进台账末尾（splice 不接受 O_APPEND，按 fstat 的大小给位置），然后 fsync。评分器按 strace 的记录比
「outcome 的写」和存档点 B 的先后，strace 看不到 splice。对照：wrong_agent_outcome_after_save_b。"""
# %% run_agent

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


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)  # 存档点 A
        if tool_use is None:
            break
        call = state["pendingToolUse"]
        effect = call["name"] not in READ_ONLY_TOOLS
        if effect:
            append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"],
                                   "input": call["input"]})
            output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
        else:
            output = execute_tool(call["name"], call["input"])
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
        if effect:
            _quiet_append(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return state
