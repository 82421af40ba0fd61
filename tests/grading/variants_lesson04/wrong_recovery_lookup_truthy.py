"""错误：recovery_action 用服务端回答的真假判断「收到过没有」（if found:）——lookup 返回结果文本或 None，
那次调用当时的结果要是空文本 ""，服务端其实收到过、已经生效，却被当成没收到，返回 "execute" 再做一次。
和 wrong_recovery_empty_output_not_reused 同一个错，只是出在服务端的回答上。"""
# %% recovery_action
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
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "record" if found else "execute"
