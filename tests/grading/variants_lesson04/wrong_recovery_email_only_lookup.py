"""错误（边界）：recovery_action 把「只有 send_email 的服务能按键查」写死在代码里：别的工具只有 intent 时不问服务端，
直接返回 "is_error"；课文：有 intent 没 outcome 就用悬空调用的 id 问服务端 lookup_effect(name, id)，答不上来才 is_error。"""
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
    if pending["name"] != "send_email":
        return "is_error"  # 只有邮件服务认幂等键
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
