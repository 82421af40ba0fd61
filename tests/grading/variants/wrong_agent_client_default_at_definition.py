"""错（轻微）：client 的默认值写成 make_client()（定义函数时就造好一个），而不是 None：调用方明确传 client=None 时
（课程写的签名是 client=None，「只有它是 None 时才用 make_client()」），第一次调用模型就 AttributeError。"""
# %% run_agent
def run_agent(task, client=make_client(), path=CHECKPOINT_PATH):
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
