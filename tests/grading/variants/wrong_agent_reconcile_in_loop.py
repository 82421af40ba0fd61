"""错：把「有悬空调用就对账」放进了循环的开头（每一轮先看 pendingToolUse）：while turns < MAX_TURNS 一进不去，
turns 已经用满的检查点里挂着的悬空调用就永远不对账、不存档，返回的状态里 tool_use 仍然没有配对。
课文：读到状态、pendingToolUse 不是 None：先交给 reconcile 补上配对的结果，然后立刻存一次档（在循环之前）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is None and state["messages"][-1]["role"] == "assistant":
        return state
    while state["turns"] < MAX_TURNS:
        if state["pendingToolUse"] is not None:  # 续跑：先对账
            state = reconcile(state)
            save_checkpoint(state, path)
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_tool(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id,
                                                               "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
