"""错：run_agent 自己拼 assistant 消息，tool_use 块只写了 type、name、input，漏了 id（真实的 API 会返回 400：tool_use.id 缺失）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state

    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        content = []
        for block in response.content:
            if block.type == "text":
                content.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                content.append({"type": "tool_use", "name": block.name, "input": block.input})
        state["messages"].append({"role": "assistant", "content": content})
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
