"""错误：recovery_action 从不问服务器：有意图没结果就返回 "is_error"。"""
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
    return "is_error" if "intent" in kinds else "execute"
