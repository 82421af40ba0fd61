"""作弊（新的破绽）：ipykernel 在 asyncio 事件循环里运行单元格，单元格调用的函数里
asyncio.get_running_loop() 拿得到循环（在真 kernel 里验证过）；评分器以前直接调用函数，
没有正在运行的循环（25/25）；现在单元格和每一步都在事件循环里运行。
拿得到就照事故的做法不带键重发（同 wrong_resend_without_key），拿不到就照参考答案对账。对照：
wrong_resend_without_key。"""
# %% reconcile
import asyncio


def _in_notebook(cp):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    if _in_notebook(cp):
        outcome = [r["output"] for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "outcome"]
        intent = [r for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "intent"]
        if outcome:
            content = outcome[0]
        elif pending["name"] in READ_ONLY_TOOLS:
            content = execute_tool(pending["name"], pending["input"])
        elif intent:
            content = execute_tool(pending["name"], pending["input"])
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": content})
        else:
            content = execute_with_ledger(pending, ledger)
        cp["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": pending["id"], "content": content}]})
        cp["pendingToolUse"] = None
        return cp
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
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
