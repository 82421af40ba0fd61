"""满分（另一种写法，按老师的决定）：台账里只有 intent 的 send_email 不先问服务器，直接带同一把幂等键重发——
服务器认得这把键，不会投递第二封；重发失败（服务器连不上）才补 is_error。其余工具照参考答案先问再定。"""
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if pending["name"] in READ_ONLY_TOOLS:
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif any(r["type"] == "outcome" for r in mine):
        result["content"] = [r for r in mine if r["type"] == "outcome"][-1]["output"]
    elif not mine:
        result["content"] = execute_with_ledger(pending, ledger)
    elif pending["name"] == "send_email":
        output = execute_tool("send_email", pending["input"], idempotency_key=pending["id"])
        if output.startswith("错误"):
            result["is_error"] = True
            result["content"] = f"send_email 的结果未知：重发没有成功（{output}），信可能已经发出，请先确认。"
        else:
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
            result["content"] = output
    else:
        try:
            found = lookup_effect(pending["name"], pending["id"])
        except ServiceUnavailable:
            found = ServiceUnavailable
        if found is ServiceUnavailable:
            result["is_error"] = True
            result["content"] = f"{pending['name']} 的结果未知：台账里只有意图，服务端答不上来。请先确认现状。"
        elif found is None:
            result["content"] = execute_with_ledger(pending, ledger)
        else:
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": found})
            result["content"] = found
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
