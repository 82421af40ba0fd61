"""错误：recovery_action 没有 outcome 时总去问服务端（也问台账里连 intent 都没有的调用）：查到就 record，没查到才 execute，
服务端连不上就 is_error。notebook 的表：没有意图就说明从没开始，执行，不用问服务端；服务端停了时它把从没开始的调用当成结果未知。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    if any(r.get("toolUseId") == pending["id"] and r["type"] == "outcome" for r in records):
        return "reuse"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
