"""错误（S4 评分标准里的 0 分答案）：reconcile 发现台账文件不存在，就说「不知道有没有 intent」，先按键问服务端：查到就记下，查不到才执行，服务端答不上来就补 is_error。可台账不存在说明连 intent 都没写过（意图总在执行之前落盘），调用从没开始，应该直接经台账执行；服务端连不上时它却给出「可能已经生效」的 is_error。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    if not Path(ledger).exists() and pending["name"] not in READ_ONLY_TOOLS:
        result = {"type": "tool_result", "tool_use_id": pending["id"]}
        try:
            found = lookup_effect(pending["name"], pending["id"])
        except ServiceUnavailable:
            result["is_error"] = True
            result["content"] = (f"{pending['name']} 的执行结果未知：找不到台账，服务端现在无法回答。"
                                 "它可能已经生效，请先确认现状，再决定下一步。")
        else:
            if found is None:
                result["content"] = execute_with_ledger(pending, ledger)
            else:
                append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": found})
                result["content"] = found
        cp["messages"].append({"role": "user", "content": [result]})
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
