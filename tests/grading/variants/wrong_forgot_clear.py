"""错：结果补上了，但忘了把 pendingToolUse 清回 None。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": "结果未知，请先确认。"}
    cp["messages"].append({"role": "user", "content": [result]})
    return cp
