"""错：tool_use_id 抄错了——用的是更早一条工具结果的 id（没有就自己编一个），而不是悬空调用的 id。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    previous_id = next((block["tool_use_id"] for message in reversed(cp["messages"])
                        if isinstance(message["content"], list) for block in message["content"]
                        if block.get("type") == "tool_result"), "toolu_01previous")
    if pending["name"] in READ_ONLY_TOOLS:
        result = {"type": "tool_result", "tool_use_id": previous_id,
                  "content": execute_tool(pending["name"], pending["input"])}
    else:
        result = {"type": "tool_result", "tool_use_id": previous_id, "is_error": True, "content": "结果未知。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
