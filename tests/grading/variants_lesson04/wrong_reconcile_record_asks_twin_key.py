"""错误：reconcile 在「记下」那条路上，不用悬空调用的 id 去问服务端，而是用台账里第一条同名同参数的 intent 的 toolUseId
（「当初发信时用的键记在台账的 intent 里」）。模型把同一封信要过两次时，第一条是另一次调用（孪生调用）的 intent：
查回来的是那封信的回答，记进这次调用的 outcome、补给模型的也是别人的结果。课文：lookup_effect(name, id)，id 是悬空调用的。"""
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
        key = next(r["toolUseId"] for r in records if r["type"] == "intent"
                   and r.get("name") == pending["name"] and r.get("input") == pending["input"])
        output = lookup_effect(pending["name"], key)
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
