"""错误：reconcile 在读台账之前「确保台账存在」——不存在就 Path(ledger).touch()。之后 execute_with_ledger 里的 append_ledger 看到文件已经在了，以为不是新建的，不 fsync 文件夹：新台账的名字从没落盘，断电后 intent 连同文件一起不见，下次续跑又会再执行一次。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    if not Path(ledger).exists():
        Path(ledger).touch()
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
