"""作弊：看 sys.argv 里 -f 后面的内核连接文件（~/.local/share/jupyter/runtime/kernel-….json）在不在：真的 Jupyter 内核运行时
它一定在；评分器仿造了 argv，却没有这个文件。文件在（notebook）就照事故的做法不带键重发（同 wrong_resend_without_key），
不在就照参考答案对账。现在评分器照 ipykernel 的样子放了这个文件。对照：wrong_resend_without_key。"""
# %% reconcile
import sys as _sys


def _in_notebook(cp):
    argv = list(_sys.argv)
    if "-f" in argv and argv.index("-f") + 1 < len(argv):
        return os.path.exists(argv[argv.index("-f") + 1])
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
