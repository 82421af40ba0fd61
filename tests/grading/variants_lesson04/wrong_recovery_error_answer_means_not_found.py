"""错误：有 intent 没 outcome 时问服务端，服务端按键查到的是一段以「错误」开头的文本（那次调用确实执行过、出错了），
recovery_action 却把它当成「没查到」，返回 execute——课上说查到了就 record（出错也是确定的结果），不该再执行一次。"""
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
        return "is_error"
    if found is None or found.startswith("错误"):
        return "execute"
    return "record"
