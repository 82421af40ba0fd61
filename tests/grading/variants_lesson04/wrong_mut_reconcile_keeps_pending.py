"""错误（变异测试）：reconcile 给悬空调用加了 tool_result，却没有把 pendingToolUse 设为 None。run_agent 照旧存档，
存下的检查点里这次调用已经有结果、又还挂着：此刻崩溃，续跑时再对一次账，同一个 tool_use 两个结果。"""
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
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    return cp
