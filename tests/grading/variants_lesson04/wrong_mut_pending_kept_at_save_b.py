"""错误（变异测试）：run_agent 执行完工具、补上 tool_result 之后没有把 pendingToolUse 清成 None 就存存档点 B：
此刻崩溃，续跑时又对一次账，同一个调用得到第二个 tool_result（API 回 400）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
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
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        save_checkpoint(state, path)
    return state
