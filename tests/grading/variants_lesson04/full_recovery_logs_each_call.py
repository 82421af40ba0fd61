"""满分（边界，对照 full_recovery_logs_to_file）：recovery_action 每次判断完，用 with open("decisions.log", "a") 往日志里追加一行
（日志文件在第一次调用时才创建），其余和参考答案一样。和对照变体一样只是日志，不改 cp、records，不执行工具、不问多余的服务端。"""
# %% recovery_action
def _log_decision(pending, action):
    with open("decisions.log", "a", encoding="utf-8") as log:
        log.write(f"{pending['id'] if pending else '-'} {action}\n")


def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    action = _decide(pending, records, lookup)
    _log_decision(pending, action)
    return action


def _decide(pending, records, lookup):
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
