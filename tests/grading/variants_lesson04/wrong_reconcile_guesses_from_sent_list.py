"""错误：悬空的 send_email 只有 intent 时，reconcile 不按幂等键问服务器，而是像第 3 课的模型那样调用只读的
list_sent_emails(to=收件人)，看已发送列表里有没有同一主题的信：有就当成已经发出，把列表里那一行记成 outcome，没有就经台账再发。
这正是第 1 节说的猜法：上周同一主题的信会被当成这一封（少发一封），补回的结果也不是服务器按键给的回答。别的工具照参考答案对账。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    mine = {r.get("type") for r in records if r.get("toolUseId") == pending["id"]}
    if pending["name"] == "send_email" and mine == {"intent"}:
        listing = execute_tool("list_sent_emails", {"to": pending["input"].get("to")})
        subject = pending["input"].get("subject", "")
        line = next((row for row in listing.splitlines() if subject and subject in row), None)
        if line is not None:
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": line})
            result["content"] = line
        else:
            result["content"] = execute_with_ledger(pending, ledger)
    elif action == "rerun":
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
