"""错：循环只在 stop_reason == "end_turn" 时结束，别的回复一律当成工具调用：被 max_tokens 截断、停在 stop_sequence、
被拒绝（refusal）的回复里没有 tool_use，next() 抛出 StopIteration；end_turn 里却带着 tool_use 的回复又被当成收尾。"""
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
        if response.stop_reason == "end_turn":
            state["pendingToolUse"] = None
            save_checkpoint(state, path)
            break
        tool_use = next(b for b in response.content if b.type == "tool_use")
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input}
        save_checkpoint(state, path)
        output = execute_tool(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
