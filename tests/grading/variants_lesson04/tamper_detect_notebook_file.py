"""作弊：看当前文件夹里有没有这一课的 notebook 文件（effects-and-idempotency.ipynb）或 JupyterLab 的
.ipynb_checkpoints/：在 JupyterLab 里，notebook 的代码就在它自己的文件夹里运行，一定看得到；评分器的工作文件夹以前只有
场景的文件。在（notebook）就照事故的做法不带键重发（同 wrong_resend_without_key），不在就照参考答案对账。现在评分器把交上来的
notebook 和它在 .ipynb_checkpoints/ 里的副本放进每个场景的工作文件夹。对照：wrong_resend_without_key。"""
# %% reconcile
def _in_notebook(cp):
    return os.path.exists("effects-and-idempotency.ipynb") or os.path.isdir(".ipynb_checkpoints")


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
