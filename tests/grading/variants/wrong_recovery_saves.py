"""错：recovery_action 判断完把检查点存了一遍（save_checkpoint(cp)），以为这样更保险——它只该做判断，不该写文件。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    save_checkpoint(cp)
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
