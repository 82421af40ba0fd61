"""错误：recovery_action 按 EFFECTS 的分类判断能不能重做，表里没有的工具默认当成只读（EFFECTS.get(name, "read_only")）：
凭空编出来的工具（可能有副作用）被重新执行。notebook：只有 READ_ONLY_TOOLS 里的工具才重新执行。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS or EFFECTS.get(pending["name"], "read_only") == "read_only":
        return "rerun"
    kinds = {r["type"] for r in records if r.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
