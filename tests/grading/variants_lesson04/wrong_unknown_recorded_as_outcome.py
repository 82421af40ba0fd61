"""错误：reconcile 在服务端答不上来（is_error）时，把「结果未知」的说明也作为 outcome 追加进台账（「记下来，下次就不用再判断」）——
下一次恢复时 recovery_action 看到 outcome 就 reuse，把「未知」当成了确定的结果，is_error 也丢了。课程的表：is_error 时台账不动。"""
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
        result["content"] = f"{pending['name']} 的结果未知：服务端答不上来，它可能已经生效，请先确认。"
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": result["content"]})
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
