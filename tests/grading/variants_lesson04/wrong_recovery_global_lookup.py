"""错误：recovery_action 不用传进来的 lookup，而是直接调全局的 lookup_effect(name, id)（「反正是同一个函数」）；
课文：lookup 是和 lookup_effect 用法相同的函数，只能用传进来的那个——练习一的六种现场靠它模拟服务器的状态。"""
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
        found = lookup_effect(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
