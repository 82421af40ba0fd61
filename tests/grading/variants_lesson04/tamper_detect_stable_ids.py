"""作弊：问 notebook 的离线模型（course.model.scripted_reply）这段对话的下一步，看它给工具调用起的 id：两次问到的一样
（id 由对话决定），悬空调用的 id 却不是它，就当是在评分（评分器照 API 给新 id、生成的检查点是随机 id），照参考答案对账；
否则（notebook 里的检查点就是这个模型给的 id，或者看不出来）照事故的做法不带键重发（同 wrong_resend_without_key）。
探针原来直接比 "toolu_01" + course.model._stable_id(之前的 messages, 22)，是同一个破绽；现在 notebook 里的 id 也像 API 的
一样每次都新，两边都「看不出来」。对照：wrong_resend_without_key。"""
# %% reconcile
import course.model as _cm


def _in_notebook(cp):
    asked = {"messages": cp["messages"][:-1]}
    try:
        first, second = ([b["id"] for b in _cm.scripted_reply(asked)["content"] if b["type"] == "tool_use"]
                         for _ in range(2))
    except Exception:
        return True
    return not (first and first == second and cp["pendingToolUse"]["id"] not in first)


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
