"""满分（另一种写法，变异测试 17d）：recovery_action 先问「有没有 intent」（没有就 "execute"），再问「有没有 outcome」。
只在台账里有 outcome 却没有 intent 时和参考答案不同，而课程的函数写不出这样的台账（intent 总在执行之前落盘，outcome 在它之后）：
评分器不出这种用例，两种顺序都算对。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
    if "intent" not in kinds:
        return "execute"
    if "outcome" in kinds:
        return "reuse"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
