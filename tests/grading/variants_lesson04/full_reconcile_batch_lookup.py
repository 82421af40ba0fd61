"""满分（另一种写法）：reconcile 要问服务端时，把台账里所有「只有 intent、没有 outcome」的调用（悬空的那个也在其中）一次
问完，答案按 id 放进一个字典（ServiceUnavailable 记成「答不上来」），再按悬空调用的那一个答案决定：记下、执行或 is_error。
多问几把别的键是只读的查询，不改变任何东西；台账只为悬空调用追加。"""
# %% reconcile
_UNAVAILABLE = object()


def ask_in_batch(records, wanted_id, wanted_name):
    """{id: 服务端的回答（None：没收到过；_UNAVAILABLE：答不上来）}，只问有 intent、没有 outcome 的调用。"""
    intents, done = {}, set()
    for record in records:
        if record.get("type") == "intent":
            intents.setdefault(record.get("toolUseId"), record.get("name"))
        elif record.get("type") == "outcome":
            done.add(record.get("toolUseId"))
    intents.setdefault(wanted_id, wanted_name)
    answers = {}
    for call_id, name in intents.items():
        if call_id in done or name in READ_ONLY_TOOLS:
            continue
        try:
            answers[call_id] = lookup_effect(name, call_id)
        except ServiceUnavailable:
            answers[call_id] = _UNAVAILABLE
    return answers


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if pending["name"] in READ_ONLY_TOOLS:
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif any(r.get("type") == "outcome" for r in mine):
        result["content"] = next(r["output"] for r in mine if r.get("type") == "outcome")
    elif not any(r.get("type") == "intent" for r in mine):
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        answer = ask_in_batch(records, pending["id"], pending["name"])[pending["id"]]
        if answer is _UNAVAILABLE:
            result["is_error"] = True
            result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                                 "它可能已经生效，请先确认现状，再决定下一步。")
        elif answer is None:
            result["content"] = execute_with_ledger(pending, ledger)
        else:
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": answer})
            result["content"] = answer
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
