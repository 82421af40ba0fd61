"""错误：reconcile 补回的确定结果只要「提到」错误（"错误" in output）就标 is_error: True——成功的输出中间提到「错误」
（一行日志）也被当成了失败。第 3 课的定义：只有以「错误」开头的输出才表示工具失败。"""
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
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output, "is_error": "错误" in output}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
