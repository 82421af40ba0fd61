"""错误（固定缓冲区）：reconcile 用自己的读台账函数，仿照 read_ledger 用 os.open，却只 os.read(fd, 65536) 读一次（「台账很小」）。台账超过 64 KB（一次长任务、几段长输出）时只读到前 64 KB：它末尾多半停在一行中间，被当成崩溃留下的半行截掉——后面的记录（包括悬空调用的 intent / outcome）连同文件内容一起被删掉，调用被当成从没开始再做一次。"""
# %% reconcile
def _my_read_ledger(path):
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return []
    try:
        data = os.read(fd, 65536)  # 台账很小，一次读完
        complete = data[:data.rfind(b"\n") + 1]
        if len(complete) < len(data):  # 末尾是崩溃留下的半行：截掉
            os.ftruncate(fd, len(complete))
            os.fsync(fd)
    finally:
        os.close(fd)
    records = []
    for number, raw in enumerate(complete.split(b"\n")[:-1], start=1):
        try:
            record = json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            raise ValueError(f"台账 {path} 第 {number} 行坏了") from exc
        if not isinstance(record, dict):
            raise ValueError(f"台账 {path} 第 {number} 行不是一条记录")
        records.append(record)
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = _my_read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = next(r["output"] for r in records
                                 if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
