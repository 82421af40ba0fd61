"""错：tool_result 里多写了几个字段（name、status、reconciled），想给日后的人看：Messages API 的 tool_result
不收多余的字段，回 400「Extra inputs are not permitted」，续跑的每次请求都被拒。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    result = {"type": "tool_result", "tool_use_id": pending["id"], "name": pending["name"], "reconciled": True}
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result.update(content=output, is_error=output.startswith("错误"), status="rerun")
    else:
        result.update(content=f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效。请先确认现状。",
                      is_error=True, status="unknown")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
