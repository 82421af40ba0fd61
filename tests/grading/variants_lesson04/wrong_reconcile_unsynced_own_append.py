"""错误：reconcile 不想让台账里出现同一个 id 的第二条 intent，于是不调用 execute_with_ledger / append_ledger，自己用 open("a")
写 intent（只在还没有 intent 时）和 outcome——没有 flush + fsync：「意图一定在执行之前落盘」在对账这条路上不成立，
断电后 intent 可能不在，下一次恢复会把已经执行过的调用当成从没开始。"""
# %% reconcile
def _jot(ledger, record):
    with open(ledger, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = [r for r in mine if r["type"] == "outcome"][-1]["output"]
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        _jot(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        if not any(r["type"] == "intent" for r in mine):
            _jot(ledger, {"type": "intent", "toolUseId": pending["id"], "name": pending["name"],
                          "input": pending["input"]})
        output = execute_tool(pending["name"], pending["input"], idempotency_key=pending["id"])
        _jot(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    else:
        result["is_error"] = True
        result["content"] = "结果未知：台账里只有意图，服务端答不上来；它可能已经生效，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
