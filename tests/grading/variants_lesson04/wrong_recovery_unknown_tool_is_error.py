"""错误：recovery_action 照第 3 课的规矩处理「不认识的工具」：名字既不在 READ_ONLY_TOOLS、也不是 send_email、也不在 EFFECTS 里，
一律 "is_error"，不看台账——台账里有它的 outcome（该 reuse）或者连 intent 都没有（该 execute）时也一样。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    if pending["name"] != "send_email" and pending["name"] not in EFFECTS:
        return "is_error"  # 第 3 课：不认识的工具，永远不重跑
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
