"""对：reconcile 先看 messages 里是不是已经有这个 id 的 tool_result（对过账、存档前崩溃），有就只清 pendingToolUse；没有才补（实际总是补）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    answered = any(isinstance(m["content"], list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == pending["id"]
        for b in m["content"]) for m in cp["messages"] if m["role"] == "user")
    if not answered:
        if pending["name"] in READ_ONLY_TOOLS:
            output = execute_tool(pending["name"], pending["input"])
            result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                      "is_error": output.startswith("错误")}
        else:
            result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                      "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，请先确认现状。"}
        cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
