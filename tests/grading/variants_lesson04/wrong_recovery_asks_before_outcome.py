"""错误：recovery_action 先看有没有 intent：有 intent 就去问服务端，即使台账里已经有 outcome。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {r.get("type") for r in records if r.get("toolUseId") == pending["id"]}
    if "intent" in kinds:
        try:
            found = lookup(pending["name"], pending["id"])
        except ServiceUnavailable:
            return "reuse" if "outcome" in kinds else "is_error"
        if found is not None:
            return "reuse" if "outcome" in kinds else "record"
        return "reuse" if "outcome" in kinds else "execute"
    return "execute"
