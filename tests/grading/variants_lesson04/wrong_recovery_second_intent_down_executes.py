"""错误：recovery_action 对「台账里这次调用已经有两条以上 intent、没有 outcome」（上一次对账判成 execute、带键重发时又崩了）另有一套想法：
「上次对账问过服务端，它说没收到，所以第一次尝试肯定没到；这次就算服务端连不上，也照 execute 再带同一把键发一次」。
可第二次尝试（对账里的那次重发）可能已经送达，崩溃在送达之后、outcome 之前；此刻服务端答不上来，结果真的未知，应该 is_error。
执行只会得到「邮件没有发出去」并被记成 outcome，模型以为没发，换新 id 再发一封。课文：有 intent 没 outcome、服务端答不上来 → is_error。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    types = [r.get("type") for r in records if r.get("toolUseId") == pending["id"]]
    if "outcome" in types:
        return "reuse"
    if "intent" not in types:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        # 两条 intent：上一次对账已经问过服务端（它说没收到），再带同一把键执行一次
        return "execute" if types.count("intent") >= 2 else "is_error"
    return "execute" if found is None else "record"
