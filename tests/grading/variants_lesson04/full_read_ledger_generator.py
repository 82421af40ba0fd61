"""满分（边界，另一种写法）：学生在额外的单元格里自己写了一个流式的 read_ledger（覆盖课程的同名函数）：生成器，
先按字节截掉末尾的半行（ftruncate + fsync），再一行一行 yield 记录；reconcile 用 list(read_ledger(ledger))。
notebook 里 for record in read_ledger(...) 照样能用。"""
# %% extra after append_ledger
def read_ledger(path):
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb+") as ledger:
        data = ledger.read()
        complete = data.rfind(b"\n") + 1
        if complete < len(data):
            os.ftruncate(ledger.fileno(), complete)
            os.fsync(ledger.fileno())
        ledger.seek(0)
        for number, raw in enumerate(data[:complete].split(b"\n")[:-1], start=1):
            record = json.loads(raw.decode("utf-8"))
            if not isinstance(record, dict):
                raise ValueError(f"台账 {path} 第 {number} 行坏了")
            yield record
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = list(read_ledger(ledger))
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
