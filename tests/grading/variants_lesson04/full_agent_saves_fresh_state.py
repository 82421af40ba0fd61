"""满分（另一种写法，多存一次）：从头开始时，run_agent 先把新建的状态存一次档（「任务一开始就记下来」），再进入循环；
之后的存档点 A、B 和课文一样。这一份检查点没有悬空调用，此刻崩溃，续跑就是重新调用模型，和从头开始一样。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
        save_checkpoint(state, path)  # 任务一开始就记下来
    elif state["pendingToolUse"] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)

    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)  # 存档点 A
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
