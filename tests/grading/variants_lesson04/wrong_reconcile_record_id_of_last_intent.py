"""错误（结果记到别的调用名下）：reconcile 在 record 时，把服务端的回答记成台账里最后一条 intent 的 outcome（「悬空调用就是最后开始的那一个」），toolUseId 取自那条 intent。台账里悬空调用的 intent 之后还可能有别的调用的记录，这条 outcome 就记到了别的调用名下，悬空调用自己仍只有 intent。"""
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
        last = [r for r in records if r.get("type") == "intent"][-1]
        append_ledger(ledger, {"type": "outcome", "toolUseId": last["toolUseId"], "output": output})
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
