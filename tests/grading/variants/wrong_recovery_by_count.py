"""错（捷径）：recovery_action 看消息条数——条数是奇数（最后一条是工具结果）就 continue，否则认定有悬空调用。
模型已经给出最终回复、什么也没悬空的检查点，条数也是偶数。"""
# %% recovery_action
def recovery_action(cp):
    if len(cp["messages"]) % 2 == 1:
        return "continue"
    return "rerun" if cp["pendingToolUse"]["name"] in READ_ONLY_TOOLS else "is_error"
