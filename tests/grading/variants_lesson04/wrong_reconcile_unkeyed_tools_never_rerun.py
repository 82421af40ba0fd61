"""错误（把「没有幂等键保护」当成「不能执行」）：reconcile 对台账里没有 intent 的悬空调用，只有 send_email（服务器认键）和 EFFECTS 里的幂等写才执行；charge_card、append_line 这类非幂等工具、以及不认识的工具，哪怕台账里连 intent 都没有，也补 is_error「结果未知」。课文：意图总在执行之前落盘，没有意图就说明从没开始，经台账执行一次（S4）；is_error 只留给「有 intent、服务端答不上来」。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    if action == "execute" and pending["name"] != "send_email" and EFFECTS.get(pending["name"]) != "idempotent":
        action = "is_error"  # 没有键保护的非幂等工具：不敢再执行
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
        result["content"] = (f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
