"""错误：reconcile 补回的确定结果以「错误」开头时，照第 3 课标失败，却写成字符串 "is_error": "true"（照抄 JSON 的样子）——
API 要的是布尔值 True，字符串会让下一次调用模型得到 400。"""
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
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output}
        if output.startswith("错误"):
            result["is_error"] = "true"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
