"""错误（第 3 课 wrong_reconcile_send_seen_before 的第 4 课版）：reconcile 先翻对话历史：之前已经有一次同名同参数、成功
（没有 is_error）的调用，就认定悬空的这次是模型的重复请求，把那次的结果拿来当这次的结果，不查台账、不问服务端、不执行
（「同样的信已经发过了」）。可两次参数相同的调用是两次不同的调用（每周的周报、再扣一笔同样金额的款）：这次的 intent、
outcome 在台账里按它自己的 id 记着，服务端也按它自己的键回答；这一次可能从没发出，结果也不是那一次的。没有同样的调用时照参考答案对账。"""
# %% reconcile
def _answered_before(messages, name, tool_input):
    """对话里更早的一次同名同参数、成功的调用的结果；没有就是 None。"""
    for i, message in enumerate(messages[:-1]):
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_use" and block["name"] == name and block["input"] == tool_input:
                following = messages[i + 1]["content"] if i + 1 < len(messages) else []
                for answer in following if isinstance(following, list) else []:
                    if (answer.get("type") == "tool_result" and answer.get("tool_use_id") == block["id"]
                            and not answer.get("is_error")):
                        return answer.get("content")
    return None


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    earlier = None if pending["name"] in READ_ONLY_TOOLS else \
        _answered_before(cp["messages"], pending["name"], pending["input"])
    if earlier is not None:
        result["content"] = earlier
        cp["messages"].append({"role": "user", "content": [result]})
        cp["pendingToolUse"] = None
        return cp
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
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
