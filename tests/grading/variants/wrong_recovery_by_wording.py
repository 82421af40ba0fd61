"""错（捷径）：recovery_action 看任务的措辞猜答案——任务里提到「邮件」就返回 is_error，否则有悬空调用就 rerun。
以前的样例里发信任务恰好总配着高影响工具，这样猜也能对；答案只该由悬空调用的工具决定。"""
# %% recovery_action
def recovery_action(cp):
    if cp["pendingToolUse"] is None:
        return "continue"
    return "is_error" if "邮件" in cp["task"] else "rerun"
