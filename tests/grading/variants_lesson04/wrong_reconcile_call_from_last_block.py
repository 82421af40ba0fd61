"""错误（第 3 课 wrong_reconcile_last_block_id 的第 4 课版）：reconcile 不用 pendingToolUse，而是把最后一条 assistant 消息的
最后一个内容块当成悬空调用（「对话才是真相，pendingToolUse 只是它的副本」），从它取 id、name、input 去查台账、问服务端、
执行、配 tool_result。可模型在 tool_use 之后还可以再写一段文字（Messages API 真会这样回复，第 3 课的评分每次都有）：
那时最后一块是文字，没有 id，对账抛 KeyError，续跑永远卡在这里。"""
# %% reconcile
def reconcile(cp, ledger):
    block = cp["messages"][-1]["content"][-1]
    pending = {"id": block["id"], "name": block["name"], "input": block["input"]}
    records = read_ledger(ledger)
    action = recovery_action({**cp, "pendingToolUse": pending}, records, lookup_effect)
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
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
