"""错误：recovery_action 按工具名和参数（而不是 id）在台账里找这次调用的记录——找到的是另一次相同的调用。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    ids = {r["toolUseId"] for r in records if r["type"] == "intent" and r["name"] == pending["name"]
           and r["input"] == pending["input"]}
    kinds = {r["type"] for r in records if r.get("toolUseId") in ids}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
