"""错：判断只读用的是子串测试（名字里含有某个只读工具名就算只读）：
read_file_then_delete、grep_and_replace 这样的高影响工具被当成只读重新执行。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def is_read_only(name):
    return any(safe in name for safe in READ_ONLY_TOOLS)


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if is_read_only(pending["name"]):
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
    return "rerun" if is_read_only(pending["name"]) else "is_error"
