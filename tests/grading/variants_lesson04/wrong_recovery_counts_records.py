"""错误：recovery_action 按这次调用的记录条数判断（课文说「每个高影响调用最多留下两条」）：0 条没开始、1 条只有意图、2 条就是
意图加结果——可「有意图、服务器没收到」之后经 execute_with_ledger 重做，会再写一条 intent：[intent, intent] 被当成有结果，
reconcile 去找 outcome 时出错，续跑永远卡住；[intent, intent, outcome] 则被当成乱账补 is_error。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    if len(mine) == 0:
        return "execute"
    if len(mine) == 2:
        return "reuse"
    if len(mine) == 1:
        try:
            found = lookup(pending["name"], pending["id"])
        except ServiceUnavailable:
            return "is_error"
        return "execute" if found is None else "record"
    return "is_error"
