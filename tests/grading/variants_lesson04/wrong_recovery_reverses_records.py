"""错误：recovery_action 想从新到旧找这次调用的记录，用 records.reverse() 原地倒过来，改动了传进来的 records
（notebook：「只做判断，不修改 cp 和 records」）；reconcile 之后拿到的是倒过来的台账记录。判断本身是对的。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    records.reverse()  # 最新的在前
    kinds = [r["type"] for r in records if r.get("toolUseId") == pending["id"]]
    if "outcome" in kinds:
        return "reuse"
    if not kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
