"""错误：recovery_action 把 EFFECTS 里的幂等写（set_ticket_status、write_file、add_label）也当成可以直接重跑的，
返回 "rerun"（第 2 节说幂等写「能」再执行）；可课程的表只对 READ_ONLY_TOOLS 里的工具返回 "rerun"，
幂等写没有幂等键、也没查台账就重做。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS or EFFECTS.get(pending["name"]) == "idempotent":
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
