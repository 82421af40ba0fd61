"""错误：recovery_action 区分两种 ServiceUnavailable：服务端「连不上」才是 is_error；「不支持按键查询」时以为服务端在线、
只是查不到，当作没收到，返回 "execute"。课程说这两种都是答不上来，都该 is_error。"""
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
    except ServiceUnavailable as exc:
        return "execute" if "不支持" in str(exc) else "is_error"
    return "execute" if found is None else "record"
