"""错：recovery_action 遇到只读工具时先“试跑”一次 execute_tool，确认能跑再返回 "rerun"（它只该做判断）。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        return "is_error" if output.startswith("错误") else "rerun"
    return "is_error"
