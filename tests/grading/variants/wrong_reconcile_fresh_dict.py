"""错：reconcile 另造一个新检查点返回，只抄了 messages 和 task，tokensUsed 归零、turns 从 messages 里数。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了。请先确认现状。"}
    messages = cp["messages"] + [{"role": "user", "content": [result]}]
    return {"version": CHECKPOINT_VERSION, "task": cp["task"],
            "turns": sum(1 for m in messages if m["role"] == "assistant"), "tokensUsed": 0,
            "messages": messages, "pendingToolUse": None}
