"""错误：reconcile 发现台账文件还不存在时，认为「还没有台账，没什么可记的」，直接带幂等键 execute_tool 执行悬空调用、不经台账（不先记 intent，也不记 outcome）。课文：没有意图就经台账正常执行一次（先记意图，带键）；这次执行途中再崩溃，台账里仍然什么都没有，下次又会执行一次（charge_card 扣两次款）。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    if not Path(ledger).exists() and pending["name"] not in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"], idempotency_key=pending["id"])
        cp["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": pending["id"], "content": output}]})
        cp["pendingToolUse"] = None
        return cp
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
    cp["pendingToolUse"] = None
    return cp
