"""错误：reconcile 用自己写的读台账函数：末尾的半行按字节截掉（对），可中间读不出来的行也一律跳过（try/except 后 continue），
不报错：台账中间坏了，这次调用的记录可能正好在坏掉的那几行里，当成没有就会再做一次。课文：中间某一行读不出来，
那是文件坏了，要让 ValueError 抛出去。"""
# %% reconcile
def load_records(ledger):
    path = Path(ledger)
    if not path.exists():
        return []
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep < len(data):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, keep)
            os.fsync(fd)
        finally:
            os.close(fd)
    records = []
    for raw in data[:keep].split(b"\n")[:-1]:
        try:
            record = json.loads(raw.decode("utf-8"))
        except ValueError:
            continue  # 坏行跳过
        if isinstance(record, dict):
            records.append(record)
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = load_records(ledger)
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
