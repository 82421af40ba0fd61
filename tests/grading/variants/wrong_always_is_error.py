"""错：不管什么工具一律补 is_error，连只读的 read_file 也不重新执行。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    cp["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True, "content": "执行结果未知，请重新确认。"}]})
    cp["pendingToolUse"] = None
    return cp
