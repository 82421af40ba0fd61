"""错误：recovery_action 按悬空调用的 id 记住自己的判断（「同一个调用的判断不会变，省得每次都问服务端」）：
同一个内核里第二次恢复同一个调用时（第一次判成 "execute"、执行途中又被打断，intent 已经在台账里）还返回旧的 "execute"，
不再看台账、不再问服务端；服务端不认键时就多做一次。课文：只做判断，按传进来的 records 和 lookup 的回答判断。"""
# %% recovery_action
_DECIDED = {}


def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["id"] in _DECIDED:
        return _DECIDED[pending["id"]]
    if pending["name"] in READ_ONLY_TOOLS:
        action = "rerun"
    else:
        kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
        if "outcome" in kinds:
            action = "reuse"
        elif "intent" not in kinds:
            action = "execute"
        else:
            try:
                found = lookup(pending["name"], pending["id"])
            except ServiceUnavailable:
                return "is_error"  # 服务端过一会儿可能就好了：这个不记
            action = "execute" if found is None else "record"
    _DECIDED[pending["id"]] = action
    return action
