"""错误：recovery_action 只看整本台账的最后一条记录（不管它是不是这次调用的）：最后一条是这次调用的 outcome 才复用、
是它的 intent 才问服务端，否则当成没开始、执行。台账里这次调用之后还有别的调用的记录时，做完的调用被再执行一次。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    last = records[-1] if records else None
    if last is None or last.get("toolUseId") != pending["id"]:
        return "execute"
    if last["type"] == "outcome":
        return "reuse"
    try:
        answer = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if answer is None else "record"
