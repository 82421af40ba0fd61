"""满分（另一种写法）：reconcile 用自己的读台账函数，文本模式读（errors="replace"，半截的多字节字符只会出现在半行里），
按 "\n" 分行；末尾没有换行的半行丢掉，再把文件截到完整部分的字节长度（编码回 UTF-8 算），中间读不出来的行抛 ValueError。"""
# %% extra after execute_with_ledger
def load_ledger(ledger):
    path = Path(ledger)
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        return []
    end = text.rfind("\n") + 1
    complete = text[:end]
    if end < len(text):
        with open(path, "r+b") as f:
            f.truncate(len(complete.encode("utf-8")))
            f.flush()
            os.fsync(f.fileno())
    records = []
    for number, line in enumerate(complete.split("\n")[:-1], start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            raise ValueError(f"台账 {path} 第 {number} 行不是一条完整的记录，文件可能已损坏")
        records.append(record)
    return records
# %% reconcile
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
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
