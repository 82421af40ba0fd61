"""错：高影响工具那条路径忘了补 tool_result，只清掉了 pendingToolUse。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        cp["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": pending["id"], "content": output}]})
    cp["pendingToolUse"] = None
    return cp
