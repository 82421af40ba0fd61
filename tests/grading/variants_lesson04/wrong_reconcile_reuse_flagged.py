"""错误：reconcile 复用台账里的 outcome 时一律标 is_error: True（「这是以前记下的结果，不是这次执行的，提醒模型」）——
outcome 是确定的结果，标 is_error 就把它说成了失败或未知，正是台账要消灭的「未知」。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["is_error"] = True
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
