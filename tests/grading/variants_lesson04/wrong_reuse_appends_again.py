"""错误：reconcile 在 "reuse" 时又往台账里追加了一条同样的 outcome（表里写的是「台账 不动」），
"is_error" 时也追加一条 output 为说明文字的 outcome——把「结果未知」记成了结果。"""
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
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": result["content"]})
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = f"{pending['name']} 的结果未知：服务端答不上来，它可能已经生效，请先确认。"
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": result["content"]})
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
