"""满分（另一种写法）：recovery_action 先算出这次调用有没有 intent、有没有 outcome，再用 match 语句按 (有 outcome, 有 intent)
分派（不用枚举、不用 dataclass）；只有 (False, True) 那一格才问服务端，lookup 的结果用 `is None` 判断。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    mine = [r.get("type") for r in records if r.get("toolUseId") == pending["id"]]
    match ("outcome" in mine, "intent" in mine):
        case (True, _):
            return "reuse"
        case (False, False):
            return "execute"
        case _:
            try:
                answer = lookup(pending["name"], pending["id"])
            except ServiceUnavailable:
                return "is_error"
            return "execute" if answer is None else "record"
