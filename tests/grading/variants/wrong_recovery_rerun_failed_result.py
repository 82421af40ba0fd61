"""错：把「已知的失败」和「悬空调用」混为一谈：没有悬空调用、但最后一个 tool_result 带 is_error 时，recovery_action 返回 "rerun"
（「上次失败了，恢复时再读一次」）。课程：失败是已知的结果，对话完整，直接 continue，由模型自己换办法。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is not None:
        return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
    last = cp["messages"][-1]
    if last["role"] == "user" and isinstance(last["content"], list):
        if any(block.get("type") == "tool_result" and block.get("is_error") for block in last["content"]):
            return "rerun"
    return "continue"
