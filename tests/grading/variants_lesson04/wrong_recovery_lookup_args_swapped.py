"""错误：recovery_action 问服务端时把参数顺序写反了：lookup(id, name)；课文写的是 lookup(name, key)。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {r["type"] for r in records if r.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["id"], pending["name"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
