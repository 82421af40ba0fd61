"""错误：recovery_action 判成 "is_error"（结果真的未知）时，顺手把检查点存一份到默认的 CHECKPOINT_PATH（「留个现场给人看」），
别的判断不写文件：只做判断的函数有了课文禁止的副作用，只是不是每次都有。对照 wrong_recovery_saves_checkpoint（每次都存）。"""
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
        save_checkpoint(cp)  # 结果未知：留个现场给人看
        return "is_error"
    return "execute" if found is None else "record"
