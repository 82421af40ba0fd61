"""正确（照第 3 课）：reconcile 补回的结果只要是确定的、又以「错误」开头（重新执行的只读工具、复用的 outcome、服务器的回答、
经台账执行的输出），就照第 3 课标 is_error: True——那是确定的失败，不是「结果未知」；结果未知时照课文补 is_error 和一句说明。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    if action == "is_error":
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。"}
    else:
        if action == "rerun":
            output = execute_tool(pending["name"], pending["input"])
        elif action == "reuse":
            output = [r for r in records if r.get("toolUseId") == pending["id"] and r.get("type") == "outcome"][-1]["output"]
        elif action == "record":
            output = lookup_effect(pending["name"], pending["id"])
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        else:
            output = execute_with_ledger(pending, ledger)
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
