"""错误：reconcile 把「有意图没结果」当成没做完，不问服务器、不带键地再执行一次（就是事故的做法），再记下结果。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    outcome = [r["output"] for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "outcome"]
    intent = [r for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "intent"]
    if outcome:
        content = outcome[0]
    elif pending["name"] in READ_ONLY_TOOLS:
        content = execute_tool(pending["name"], pending["input"])
    elif intent:
        content = execute_tool(pending["name"], pending["input"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": content})
    else:
        content = execute_with_ledger(pending, ledger)
    cp["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": pending["id"], "content": content}]})
    cp["pendingToolUse"] = None
    return cp
