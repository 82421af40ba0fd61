"""满分：reconcile 先用 notebook 开头演示单元格里定义的 describe() 打印最后一条消息（多打一行日志），
其余和参考答案一样。describe() 不在答题单元格里，但在学生的 notebook 里能用，评分器也要能用。"""
# %% reconcile
def reconcile(cp, ledger):
    print("对账前：", describe(cp["messages"][-1]))
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
        result["content"] = (f"{pending['name']} 的结果不确定：台账里只记了意图，服务端也答不上来，"
                             "它也许已经生效了，先核实再往下做。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
