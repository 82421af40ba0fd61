"""满分（另一种写法）：结果未知时，is_error 的 content 是一段 JSON：{"status": "unknown", "tool": ..., "toolUseId": ...,
"message": "结果未知……它可能已经生效，请先确认现状，再决定下一步。"}（「机器也读得懂」）。说的还是结果未知、先确认。"""
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
        result["content"] = json.dumps({"status": "unknown", "tool": pending["name"], "toolUseId": pending["id"],
                                        "message": "结果未知：台账里只有意图，服务端现在答不上来。它可能已经生效，"
                                                   "请先确认现状，再决定下一步。"}, ensure_ascii=False)
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
