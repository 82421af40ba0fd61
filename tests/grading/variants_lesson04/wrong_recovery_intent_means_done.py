"""错误：recovery_action 只要台账里有这次调用的记录（intent 也算）就判 "reuse"，reconcile 找不到 outcome 时补一句
「已经执行过」：把「开始过、不知道结果」当成了「做完了」，不问服务端。服务端其实没收到时这次调用就一次也没做，
服务端连不上时也不标 is_error。课文：有 intent 没 outcome 要按键问服务端。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    if any(record.get("toolUseId") == pending["id"] for record in records):
        return "reuse"  # 台账里有它，说明已经执行过
    return "execute"
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        outcomes = [r["output"] for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "outcome"]
        result["content"] = outcomes[-1] if outcomes else f"{pending['name']} 已经执行过（台账里有它的意图记录）。"
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
