"""满分（边界，对照 full_recovery_logs_each_call）：recovery_action 每次判断完往自己的日志 decisions.jsonl 追加一行 JSON
（"a" 模式、只追加）：悬空调用的 id、它在台账里的记录（原样的 dict）和判断。日志不是台账也不是检查点，没有人按它恢复；
不改 cp、records，不执行工具。"""
# %% recovery_action
def _decide(pending, mine, lookup):
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {r["type"] for r in mine}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"


def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    mine = [r for r in records if pending and r.get("toolUseId") == pending["id"]]
    action = _decide(pending, mine, lookup)
    with open("decisions.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({"call": pending and pending["id"], "records": mine, "action": action},
                             ensure_ascii=False) + "\n")
    return action
