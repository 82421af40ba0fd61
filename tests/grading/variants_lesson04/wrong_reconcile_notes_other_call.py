"""错误：和 wrong_reuse_other_call 一样，找不到这次调用的 outcome 时拿名字和参数相同的另一次调用的 outcome 顶上，
只是前面加了一行说明。说明可以加，放进去的却是另一封信的结果。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    similar = [r for r in records if r["type"] == "intent" and r["name"] == pending["name"]
               and r["input"] == pending["input"] and r["toolUseId"] != pending["id"]]
    done = {r["toolUseId"]: r["output"] for r in records if r["type"] == "outcome"}
    borrowed = next((done[r["toolUseId"]] for r in similar if r["toolUseId"] in done), None)
    if pending["name"] not in READ_ONLY_TOOLS and pending["id"] not in done and borrowed is not None:
        noted = "（对账：台账里同样的调用已经做过）\n" + borrowed
        cp["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": pending["id"], "content": noted}]})
        cp["pendingToolUse"] = None
        return cp
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = done[pending["id"]]
    elif action == "record":
        result["content"] = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": result["content"]})
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = "结果未知：台账里只有意图，服务端无法回答，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
