"""错误：台账记录用 "id" 而不是 "toolUseId" 记调用的 id（execute_with_ledger、recovery_action、reconcile 自己前后一致）：
课文定下的格式是 toolUseId，课程的工具和别人写的台账里按它找；读别人的台账时它一条这次调用的记录也找不到，
什么都当成「从没开始」再执行一次。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "id": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "id": call["id"], "output": output})
    return output
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {record["type"] for record in records if record.get("id") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = next(r["output"] for r in records if r.get("id") == pending["id"] and r["type"] == "outcome")
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "id": pending["id"], "output": output})
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
