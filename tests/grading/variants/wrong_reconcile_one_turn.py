"""错：reconcile 把结果插在第 2 条消息之后，以为悬空的 assistant 消息总是第 2 条。
只有一轮的检查点上恰好对；轮数多了，结果插进了对话中间，原来的消息被打乱，悬空调用仍然没有配对。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了。请先确认现状。"}
    cp["messages"].insert(2, {"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
