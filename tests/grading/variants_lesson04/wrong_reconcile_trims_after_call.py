"""错误（第 3 课 wrong_reconcile_trims_assistant 的第 4 课版）：reconcile 照参考答案按台账对账，可补结果之前把最后那条 assistant
消息里 tool_use 之后的文字删掉了（「tool_result 要紧跟着 tool_use，后面的文字会让 API 报错」）：改动了历史。
课文：assistant 消息原样保留。模型在 tool_use 之后再写一段文字是 Messages API 真会发来的回复。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    last = cp["messages"][-1]
    if isinstance(last.get("content"), list):
        kept = []
        for block in last["content"]:
            kept.append(block)
            if block.get("type") == "tool_use" and block.get("id") == pending["id"]:
                break
        last["content"] = kept
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
