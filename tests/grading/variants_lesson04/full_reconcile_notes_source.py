"""满分（契约允许的写法）：reconcile 补的 tool_result 在真实输出前面加一行说明这个结果是怎么得来的
（「（对账：复用台账里记下的结果）」「（对账：向服务端按幂等键查到）」「（对账：重新执行）」），输出原样跟在后面，
其余和参考答案一样。第 3 课的可见检查和评分契约都允许工具输出前后有别的字。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = "（对账：只读工具，重新执行）\n" + execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        output = next(r["output"] for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
        result["content"] = "（对账：复用台账里记下的结果）\n" + output
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = "（对账：向服务端按幂等键查到）\n" + output
    elif action == "execute":
        result["content"] = "（对账：服务端没有这次调用，已带同一把幂等键执行）\n" + execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
