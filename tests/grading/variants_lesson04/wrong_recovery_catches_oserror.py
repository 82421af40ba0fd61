"""错误：recovery_action 以为服务端连不上就是网络错误，只捕获 (ConnectionError, TimeoutError, OSError)，
没有捕获课程的 ServiceUnavailable（它是 ToolError，不是 OSError）：服务端答不上来时异常一路抛出去，对账直接崩溃。
课文：lookup 答不上来时抛 ServiceUnavailable，这时返回 "is_error"。"""
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
    except (ConnectionError, TimeoutError, OSError):
        return "is_error"
    return "execute" if found is None else "record"
