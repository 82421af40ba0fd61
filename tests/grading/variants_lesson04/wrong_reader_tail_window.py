"""错误（「台账会越来越大」）：reconcile 用自己写的读台账函数，只读文件最后 16 KB（悬空调用总是最后一个调用，它的记录一定
在末尾），窗口开头那一行多半不完整、扔掉；末尾的半行照课程的做法按字节截掉、fsync。可一条 outcome 的 output 可能很长
（一份一万多字的报告、部署日志）：它那一行比窗口还长，整行被当成「窗口开头的残行」扔掉，intent 又在窗口之外——
悬空调用看起来从没开始，已经做完的调用被再执行一次。"""
# %% reconcile
WINDOW = 16 * 1024


def tail_records(ledger):
    path = Path(ledger)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return []
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - WINDOW)
        data = os.pread(fd, size - start, start)
        end = data.rfind(b"\n") + 1
        if end < len(data):  # 崩溃留下的半行：截掉
            os.ftruncate(fd, start + end)
            os.fsync(fd)
        data = data[:end]
    finally:
        os.close(fd)
    if start > 0:  # 窗口开头的那一行不完整
        data = data[data.find(b"\n") + 1:]
    records = []
    for raw in data.split(b"\n")[:-1]:
        record = json.loads(raw.decode("utf-8", errors="replace"))
        if not isinstance(record, dict):
            raise ValueError(f"台账 {path} 坏了")
        records.append(record)
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = tail_records(ledger)
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
