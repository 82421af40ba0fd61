"""错误（对照 full_recovery_logs_each_call）：recovery_action 判断完顺手把检查点存一份（save_checkpoint(cp)，默认的 CHECKPOINT_PATH），
再往默认台账里追加一条记下决定的 intent——只做判断的函数写了检查点和台账，这才是课文禁止的副作用。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    action = _decide(pending, records, lookup)
    save_checkpoint(cp)  # 「顺手存个档，更保险」
    if pending is not None and action == "execute":
        append_ledger(ledger_path(CHECKPOINT_PATH), {"type": "intent", "toolUseId": pending["id"],
                                                     "name": pending["name"], "input": pending["input"]})
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
