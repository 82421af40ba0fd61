"""错误：reconcile 判成 "execute" 时直接 execute_tool(name, input, idempotency_key=id)，不走 execute_with_ledger：
台账里没有 intent、没有 outcome。这次执行途中再崩溃，下次恢复看台账「从没开始」，不认键的工具（append_line、charge_card）就做两遍；
就算执行完了，下次恢复也不知道它的结果，只能再做。课文：execute 经 execute_with_ledger 执行。"""
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
        result["content"] = execute_tool(pending["name"], pending["input"], idempotency_key=pending["id"])
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
