"""错误：recovery_action 用 next(...) 只取台账里这次调用的第一条记录：它总是 intent，于是台账里已有 outcome 的调用
也去问服务端、得到 record 或 execute，而不是复用。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    mine = next((r for r in records if r.get("toolUseId") == pending["id"]), None)
    if mine is None:
        return "execute"
    if mine["type"] == "outcome":
        return "reuse"
    try:
        answer = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if answer is None else "record"
