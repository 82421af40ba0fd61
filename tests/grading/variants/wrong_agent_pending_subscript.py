"""错：恢复时用 state["pendingToolUse"]["id"] 判断有没有悬空调用（而不是 is not None）：检查点停在存档点 B 时
pendingToolUse 是 None，一续跑就 TypeError。用来看反馈：报错原因是下标，不是 client。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"]["id"]:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state
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
        output = execute_tool(tool_use.name, tool_use.input)
        result = {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                  "is_error": output.startswith("错误")}
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
