"""错误（S4 评分标准里的 0 分答案「要先问服务器才能决定」）：reconcile 对悬空的 send_email，只要台账里没有 outcome，就先按键问邮件服务器——不管台账里有没有 intent：查到就记下，查不到就执行，连不上就补 is_error。可没有 intent 说明调用从没开始，应该直接经台账执行一次；服务器连不上时它却说「可能已经生效」。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    outcomes = [r for r in mine if r["type"] == "outcome"]
    if pending["name"] == "send_email" and not outcomes:
        try:
            found = lookup_effect(pending["name"], pending["id"])
        except ServiceUnavailable:
            result["is_error"] = True
            result["content"] = ("send_email 的执行结果未知：邮件服务器现在无法回答。"
                                 "这封信可能已经发出，请先确认现状，再决定下一步。")
        else:
            if found is None:
                result["content"] = execute_with_ledger(pending, ledger)
            else:
                append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": found})
                result["content"] = found
        cp["messages"].append({"role": "user", "content": [result]})
        cp["pendingToolUse"] = None
        return cp
    action = recovery_action(cp, records, lookup_effect)
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = outcomes[0]["output"]
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
