"""错误：reconcile 读台账时「容错」：read_ledger 抛出 FileNotFoundError 或 ValueError（中间有一行坏了）都当成空台账，继续对账。
课文：中间某一行读不出来，那是文件坏了，read_ledger 抛 ValueError——当成空台账，所有调用都成了「没有 intent = 从没开始」，
悬空的 charge_card、append_line 会被再执行一次（和第 3 课读不出来的检查点不能当成没有检查点从头再来是同一个道理）。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    try:
        records = read_ledger(ledger)
    except (FileNotFoundError, ValueError):
        records = []  # 台账还没有或者坏了：当作没有记录
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
        result["content"] = f"{pending['name']} 的结果未知：台账里只有意图，服务端答不上来，它可能已经生效，请先确认。"
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
