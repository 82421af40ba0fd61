"""错：对账时把最后那条 assistant 消息里工具调用之后的文字删掉了（改动了历史）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    last = cp["messages"][-1]
    if isinstance(last.get("content"), list):
        kept = []
        for block in last["content"]:
            kept.append(block)
            if block.get("type") == "tool_use" and block.get("id") == pending["id"]:
                break
        last["content"] = kept
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": "结果未知：进程崩溃前没有记下结果，可能已经执行，请先确认。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
