"""错误：recovery_action 用 outcome 的 output 的真假判断「有没有结果」（if output:）——工具返回空文本 "" 也是一个确定的结果，
却被当成只有 intent：去问服务端，服务端答不上来就补 is_error（结果明明记在台账里），或者当成没收到再执行一次。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    output = next((r.get("output") for r in mine if r["type"] == "outcome"), None)
    if output:
        return "reuse"
    if not mine:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "record" if found is not None else "execute"
