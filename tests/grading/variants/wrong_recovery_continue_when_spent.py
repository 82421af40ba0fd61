"""错：recovery_action 先看 turns：已经用满 MAX_TURNS 就返回 "continue"（反正不会再调用模型），不管还有没有悬空调用。
可悬空调用照样要对账、补上配对的结果（课文：recovery_action 只看 pendingToolUse；run_agent 在 turns 用满时也先对账、存档）。"""
# %% recovery_action
def recovery_action(cp):
    if cp["turns"] >= MAX_TURNS:
        return "continue"  # 轮次已经用完，不会再调用模型，用不着对账
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
