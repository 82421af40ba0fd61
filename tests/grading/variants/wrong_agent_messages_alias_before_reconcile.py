"""错：读出检查点后先取 messages = state["messages"]，再 state = reconcile(state)；循环里一直往这个旧列表里追加、
拿它调用模型。reconcile 返回一份新检查点时（课程允许），补上的 tool_result 不在旧列表里：发给模型的对话末尾还是那个
没有回答的 tool_use（API 回 400），存进检查点的 messages 也和发出去的不是同一份。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    messages = state["messages"]
    if state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif messages[-1]["role"] == "assistant":
        return state
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=messages, **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        messages.append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_tool(tool_use.name, tool_use.input)
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
