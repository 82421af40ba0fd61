"""错误（差一个字节）：reconcile 用自己写的读台账函数，发现末尾有半行时截到最后一个换行「的位置」
（data.rfind(b"\n")，少了 + 1）：截掉半行的同时也截掉了上一条完整记录的换行。这次读出来的记录都对，
可下一次追加（记下的 outcome、执行时的 intent）接在上一条记录的同一行上，台账从此中间坏了一行。"""
# %% reconcile
def read_records(ledger):
    path = Path(ledger)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    last = data.rfind(b"\n")
    if not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(max(last, 0))
            f.flush()
            os.fsync(f.fileno())
    records = []
    for number, raw in enumerate(data[:last + 1].split(b"\n")[:-1], start=1):
        try:
            record = json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            raise ValueError(f"台账 {path} 第 {number} 行坏了") from None
        records.append(record)
    return records


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_records(ledger)
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
