"""错：recovery_action 顺手调用 reconcile(cp) 把对账做了，再返回判断（重新执行了工具，也改了传进来的检查点）。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    reconcile(cp)
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
