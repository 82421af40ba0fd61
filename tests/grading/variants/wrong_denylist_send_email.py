"""错：黑名单只拦 send_email，其余工具（包括课程没提过的高影响工具）照样重新执行。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}
HIGH_IMPACT = {"send_email"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in HIGH_IMPACT:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": "send_email 的结果未知，请先确认是否已经发出。"}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "is_error" if pending["name"] in HIGH_IMPACT else "rerun"
