"""错误（对照 wrong_recovery_memo_by_records）：recovery_action 按「调用的 id + 它自己在台账里的记录种类」记住判断
（连 "is_error" 也记）：台账里只有 intent、服务端第一次连不上，第二次连上了，它还返回 "is_error"。和 wrong_recovery_memo_by_records 同一个错，
只是键里不含别的调用的记录。"""
# %% recovery_action
_MEMO = {}


def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    kinds = tuple(record["type"] for record in records if record.get("toolUseId") == pending["id"])
    key = (pending["id"], kinds)
    if key in _MEMO:
        return _MEMO[key]
    if pending["name"] in READ_ONLY_TOOLS:
        action = "rerun"
    elif "outcome" in kinds:
        action = "reuse"
    elif "intent" not in kinds:
        action = "execute"
    else:
        try:
            found = lookup(pending["name"], pending["id"])
        except ServiceUnavailable:
            found = ServiceUnavailable
        action = "is_error" if found is ServiceUnavailable else "execute" if found is None else "record"
    _MEMO[key] = action
    return action
