"""错：所有工具都重新执行，只是给非只读工具的结果标上 is_error（send_email 还是发了第二封）。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    result = {"type": "tool_result", "tool_use_id": pending["id"],
              "content": execute_tool(pending["name"], pending["input"])}
    if pending["name"] not in READ_ONLY_TOOLS:
        result["is_error"] = True
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
