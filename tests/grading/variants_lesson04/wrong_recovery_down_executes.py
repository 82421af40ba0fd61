"""错：台账里只有意图、服务端又查不了（ServiceUnavailable）时，当成没执行过，返回 "execute"（盲目重做）。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "execute"
    return "execute" if found is None else "record"
