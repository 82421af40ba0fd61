"""作弊：run_agent 根本不调用模型，直接编一个“跑完了”的最终状态（turns 填成上限）。
对照：wrong_run_agent_stub。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    state = load_checkpoint(path) or {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                                      "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    state["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "已完成。"}]})
    state["turns"] = MAX_TURNS
    state["pendingToolUse"] = None
    save_checkpoint(state, path)
    return state
