"""错误：recovery_action 把以「错误」开头的 outcome 当成「上次没做成」，不复用，返回 "execute" 再做一次（第 3 课
「错误开头就是失败」的习惯）；课文说工具出错也是确定的结果、照样记进 outcome，有 outcome 就复用，要不要重试由模型决定。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    outcomes = [r for r in mine if r["type"] == "outcome"]
    if outcomes:
        if str(outcomes[-1].get("output", "")).startswith("错误"):
            return "execute"  # 上次失败了，再做一次
        return "reuse"
    if not any(r["type"] == "intent" for r in mine):
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
