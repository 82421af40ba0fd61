"""错误：reconcile 复用台账里记下的结果时，前面加一行说明，输出只放前 4000 个字、后面注明「已截断」。说明可以加，
输出却要整段：一万多字的日志截掉后半，模型就看不到它了。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        output = next(r["output"] for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
        shown = output if len(output) <= 4000 else output[:4000] + "…（已截断）"
        result["content"] = "（对账：复用台账里记下的结果）\n" + shown
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
