"""对：把响应里所有 tool_use 块都执行、一起作为一条 user 消息回给模型（request_params 限定最多一个，所以和参考答案一样）；pendingToolUse 记第一个。"""
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
        state["messages"].append(assistant_message(response))
        calls = [b for b in response.content if b.type == "tool_use"]
        state["pendingToolUse"] = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input} if calls else None
        save_checkpoint(state, path)
        if not calls:
            break
        results = []
        for call in calls:
            output = execute_tool(call.name, call.input)
            results.append({"type": "tool_result", "tool_use_id": call.id, "content": output,
                            "is_error": output.startswith("错误")})
        state["messages"].append({"role": "user", "content": results})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
