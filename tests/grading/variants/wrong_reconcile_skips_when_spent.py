"""错：turns 已经用满 MAX_TURNS 时，reconcile 认为反正不会再调用模型，只把 pendingToolUse 清掉、不补 tool_result：
对话末尾留下一个没有回答的 tool_use（API 会 400），检查点也不再记得这次调用（课文：两条路都恰好补回一个配对的结果块）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    cp["pendingToolUse"] = None
    if cp["turns"] >= MAX_TURNS:
        return cp  # 轮次用完了，不会再调用模型，用不着补结果
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效。请先确认现状再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    return cp
