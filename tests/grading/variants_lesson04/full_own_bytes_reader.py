"""正确（另一种写法）：reconcile 用自己写的读台账函数，和课程的 read_ledger 做的一样，写法不同：按字节读，rpartition 出
最后一个换行，末尾有半行就 ftruncate + fsync；完整的部分按 b"\n" 分行、逐行解码，读不出来的行抛 ValueError（文件坏了）。"""
# %% reconcile
def load_ledger(ledger):
    path = Path(ledger)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    complete, newline, tail = data.rpartition(b"\n")
    if tail:
        with open(path, "r+b") as f:
            f.truncate(len(complete) + len(newline))
            f.flush()
            os.fsync(f.fileno())
    records = []
    for number, raw in enumerate(complete.split(b"\n") if newline else [], start=1):
        try:
            record = json.loads(raw.decode("utf-8"))
        except ValueError:
            raise ValueError(f"台账 {path} 第 {number} 行坏了") from None
        if not isinstance(record, dict):
            raise ValueError(f"台账 {path} 第 {number} 行不是一条记录")
        records.append(record)
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = load_ledger(ledger)
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
        result["content"] = f"{pending['name']} 的结果未知：台账里只有意图，服务端答不上来，它可能已经生效，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp

