"""错误：服务端答不上来（S5）时，reconcile 补的 is_error 结果只写了「为什么」：「send_email(…)：邮件服务器现在连不上。」
既没说结果未知、可能已经生效，也没叫模型先确认；模型读到「服务器连不上」，最自然的反应是等一会儿再发一封。
课文表格：is_error 的 content 是「一两句话：结果未知，可能已经生效，请先确认」。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
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
        result["content"] = f"{pending['name']}（收件人 {pending['input'].get('to')}）：邮件服务器现在连不上。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
