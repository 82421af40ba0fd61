"""错误（过分严格）：reconcile 发现台账文件不存在就抛 FileNotFoundError（「台账不见了，一定出了事」）。可存档点 A 之后、第一条 intent 落盘之前崩溃，台账本来就还没建：这是「从没开始」，应该经台账执行一次，续跑却永远起不来。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    if not Path(ledger).exists():
        raise FileNotFoundError(f"台账 {ledger} 不存在，无法对账")
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
