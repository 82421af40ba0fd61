"""错：recovery_action 判断完顺手把 pendingToolUse 清掉了（它只该做判断）。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp.pop("pendingToolUse", None)
    cp["pendingToolUse"] = None
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
