"""错：recovery_action 为了快，只从台账末尾往前看 10 条记录（「悬空的总是最近的那个调用」）：台账长了、这次调用的记录
后面又跟了许多别的调用的记录时，就找不到它的 intent 和 outcome，把做完了的调用当成从没开始，再执行一次。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    seen = set()
    for record in reversed(records[-10:]):
        if record.get("toolUseId") == pending["id"]:
            seen.add(record.get("type"))
    if "outcome" in seen:
        return "reuse"
    if "intent" not in seen:
        return "execute"
    try:
        answer = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "record" if answer is not None else "execute"
