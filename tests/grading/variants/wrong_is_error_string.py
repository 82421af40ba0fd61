"""错：is_error 写成了字符串 "true"（API 要的是布尔值）。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": "true",
                  "content": "结果未知，请先确认。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
