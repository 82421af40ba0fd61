"""错误：reconcile 给每个调用一个「重试预算」：台账里这次调用已经有两条以上 intent（对账重发过一次又崩了）就不再问服务端、也不再执行，
直接补 is_error（「已经重试过了，交给模型吧」）。可服务端此刻也许答得上来：查到了就该 record，查不到就该带同一把键 execute；
补 is_error 把课文要消灭的「未知」又交回给模型。课文：只有服务端答不上来时才用 is_error。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    intents = sum(1 for r in records if r.get("toolUseId") == pending["id"] and r.get("type") == "intent")
    has_outcome = any(r.get("toolUseId") == pending["id"] and r.get("type") == "outcome" for r in records)
    action = recovery_action(cp, records, lookup_effect)
    if intents >= 2 and not has_outcome and action in ("record", "execute"):
        action = "is_error"  # 已经重试过一次，不再试
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
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答或已经重试过。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
