"""满分（另一种写法）：reconcile 每条路各自 return，补结果、清 pendingToolUse 交给额外单元格里的一个小函数 _answer；
复用时从后往前找这次调用的 outcome。"""
# %% extra after recovery_action
def _answer(cp, content, is_error=False):
    pending = cp["pendingToolUse"]
    block = {"type": "tool_result", "tool_use_id": pending["id"], "content": content}
    if is_error:
        block["is_error"] = True
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    name, call_id = pending["name"], pending["id"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    if action == "rerun":
        return _answer(cp, execute_tool(name, pending["input"]))
    if action == "reuse":
        for record in reversed(records):
            if record.get("toolUseId") == call_id and record.get("type") == "outcome":
                return _answer(cp, record["output"])
    if action == "record":
        answer = lookup_effect(name, call_id)
        append_ledger(ledger, {"type": "outcome", "toolUseId": call_id, "output": answer})
        return _answer(cp, answer)
    if action == "execute":
        return _answer(cp, execute_with_ledger(pending, ledger))
    return _answer(cp, f"{name} 的结果未知：台账里只有它的意图，服务端现在答不上来。它可能已经生效了，"
                       "请先确认现状，再决定要不要重做。", is_error=True)
