"""错误（偷懒的对账）：reconcile 不调用 recovery_action、从不问服务端：send_email 只要台账里没有 outcome，就经 execute_with_ledger
带同一把键再发一次，发信报错就标 is_error；服务器连不上（S5）时它照样执行，并把「错误：邮件没有发出去」记成 outcome，
下次恢复会把这个未必属实的结果当成确定的复用。课文 S5：不能执行，台账不动。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    outcomes = [r for r in mine if r.get("type") == "outcome"]
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if pending["name"] in READ_ONLY_TOOLS:
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif outcomes:
        result["content"] = outcomes[-1]["output"]
    elif pending["name"] == "send_email" or not mine:
        # 带同一把键重发：服务器认得出重复，不会多发
        output = execute_with_ledger(pending, ledger)
        result["content"] = output
        if pending["name"] == "send_email" and output.startswith("错误"):
            result["is_error"] = True
    else:
        result["is_error"] = True
        result["content"] = f"{pending['name']} 的执行结果未知，可能已经生效，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
