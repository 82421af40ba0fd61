"""错误：想着「按下中断时别丢进度」，run_agent 在 except KeyboardInterrupt 里先 save_checkpoint 再抛出去：turns 在调用模型之前
就加了 1，模型回复之前被中断时，存下的是多算了一轮、却没有这一轮回复的状态，续跑时这一轮再算一次。"""
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
    try:
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
            state["pendingToolUse"] = None
            save_checkpoint(state, path)
    except KeyboardInterrupt:
        save_checkpoint(state, path)  # 中断前先把进度存下来
        raise
    return state
