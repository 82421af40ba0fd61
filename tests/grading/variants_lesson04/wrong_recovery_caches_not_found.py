"""错误（相信过时的回答）：recovery_action 把服务端「没收到」（lookup 返回 None）的回答按键记在全局变量里，
以后同一把键不再问，直接照旧判 "execute"（「刚问过，没有」）。可课文第 1 节说过：信可能还在路上、服务器可能刚刚重启，
「没收到」只是那一刻的回答。同一个 kernel 里再恢复同一个调用时，服务端其实已经有了这封信（S2：该 "record"），
它却还答 "execute"。"""
# %% recovery_action
_NOT_FOUND = set()


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
    if (pending["name"], pending["id"]) in _NOT_FOUND:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    if found is None:
        _NOT_FOUND.add((pending["name"], pending["id"]))
        return "execute"
    return "record"
