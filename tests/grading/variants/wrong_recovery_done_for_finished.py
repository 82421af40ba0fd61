"""错：recovery_action 多出第四种答案——最后一条是模型的收尾回复、没有悬空调用时返回 "done"。契约只有三种：
没有悬空调用就是 "continue"（run_agent 自己再看任务是不是已经做完）。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is not None:
        return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
    if cp["messages"][-1]["role"] == "assistant":
        return "done"
    return "continue"
