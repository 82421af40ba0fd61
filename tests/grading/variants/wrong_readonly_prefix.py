"""错：按名字开头判断只读（read_、list_、grep、web_search 开头的都算）：
read_file_then_delete、list_dir_purge 这样的高影响工具被当成只读重新执行。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}
READ_ONLY_PREFIXES = ("read_", "list_", "grep", "web_search")


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"].startswith(READ_ONLY_PREFIXES):
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了。请先确认现状。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if pending["name"].startswith(READ_ONLY_PREFIXES) else "is_error"
