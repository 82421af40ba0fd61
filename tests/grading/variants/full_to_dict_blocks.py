"""满分：assistant 消息用 [block.to_dict() for block in response.content] 自己转（SDK 的 to_dict 只带响应里真有的字段），pendingToolUse 从转好的 dict 里取。"""
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
        blocks = [block.to_dict() for block in response.content]
        state["messages"].append({"role": "assistant", "content": blocks})
        call = next((b for b in blocks if b["type"] == "tool_use"), None)
        state["pendingToolUse"] = {"id": call["id"], "name": call["name"], "input": call["input"]} if call else None
        save_checkpoint(state, path)
        if call is None:
            break
        output = execute_tool(call["name"], call["input"])
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call["id"], "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
