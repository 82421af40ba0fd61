"""错：想兼容带前缀的工具名（fs_read_file、mcp_grep 这类），recovery_action 和 reconcile 都用 name.endswith(只读工具名) 判断：课程没提过的 bulk_read_file、archive_grep 被当作只读再执行一次（notebook：不在集合里的一律不执行）。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if pending["name"].endswith(tuple(READ_ONLY_TOOLS)) else "is_error"

# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"].endswith(tuple(READ_ONLY_TOOLS)):
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
