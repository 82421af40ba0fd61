"""错误（以为台账里一次调用的两条记录总挨着）：recovery_action 找到这次调用的第一条 intent，只看紧跟在它后面的那一条：
是这次调用的 outcome 才算有结果。可台账是几个调用共用的只追加的文件，intent 和 outcome 之间可能夹着别的调用的记录
（别的任务、同一文件夹里的另一个检查点），重做过的调用是 intent、intent、outcome：已经有结果的调用被当成只有 intent，
去问服务端，服务端答不上来就补 is_error，没收到就再执行一次。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    at = next((i for i, r in enumerate(records)
               if r.get("toolUseId") == pending["id"] and r.get("type") == "intent"), None)
    if at is None:
        return "execute"
    after = records[at + 1] if at + 1 < len(records) else None
    if after is not None and after.get("toolUseId") == pending["id"] and after.get("type") == "outcome":
        return "reuse"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
