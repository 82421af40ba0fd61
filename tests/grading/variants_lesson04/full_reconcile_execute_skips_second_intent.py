"""满分（另一种写法）：reconcile 判成 execute 时，若台账里已有这次调用的 intent（服务端说没收到），不再追加第二条 intent，
直接带同一把键 execute_tool、再追加 outcome；没有 intent 时照常经 execute_with_ledger。台账是 [intent, outcome]，
而参考答案是 [intent, intent, outcome]：意图在执行前都已落盘，恢复时一样。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = [r for r in mine if r["type"] == "outcome"][-1]["output"]
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute" and any(r["type"] == "intent" for r in mine):
        output = execute_tool(pending["name"], pending["input"], idempotency_key=pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = f"{pending['name']} 的结果未知：台账里只有意图，服务端答不上来；它可能已经生效，请先确认再决定。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
