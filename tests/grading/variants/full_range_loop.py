"""对：用 for 循环数轮次（从检查点里的 turns 数到 MAX_TURNS），其余和参考答案一样。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    state = load_checkpoint(path)
    if state is None:
        state = dict(version=CHECKPOINT_VERSION, task=task, turns=0, tokensUsed=0,
                     messages=[{"role": "user", "content": task}], pendingToolUse=None)
    elif state["pendingToolUse"]:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state
    for _ in range(state["turns"], MAX_TURNS):
        state["turns"] += 1
        reply = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = reply.usage.input_tokens + reply.usage.output_tokens
        state["messages"].append(assistant_message(reply))
        calls = [b for b in reply.content if b.type == "tool_use"]
        state["pendingToolUse"] = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input} if calls else None
        save_checkpoint(state, path)
        if not calls:
            return state
        text = execute_tool(calls[0].name, calls[0].input)
        block = {"type": "tool_result", "tool_use_id": calls[0].id, "content": text}
        if text.startswith("错误"):
            block["is_error"] = True
        state["messages"].append({"role": "user", "content": [block]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
