"""错误：服务端答不上来（S5）时，reconcile 把「台账里有 intent」当成「做过了」，is_error 结果写成「send_email 已经执行过了（台账里有它的意图记录），不用再发」。
这是把未知说成了确定的「已生效」：崩溃可能在投递之前，信根本没发出，模型照做就少发一封（课文第 1 节的「少发」）。
课文：有 intent 没 outcome、服务端答不上来时「真的不知道」，content 要说结果未知、可能已经生效、请先确认。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = next(r["output"] for r in records
                                 if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 已经执行过了（台账里有它的意图记录），不用再发，直接继续下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
