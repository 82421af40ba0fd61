"""错：续跑时把第一条 user 消息换成这次传进来的任务措辞（以为「刷新一下任务」无害），state["task"] 不动：守护进程重启时
传进来的措辞可能和当初不同，模型看到的对话就和崩溃前那次本该发出的不一样。课文：续跑时任务以检查点里记的为准，
messages 原样发给模型。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    else:
        state["messages"][0] = {"role": "user", "content": task}
        if state["pendingToolUse"] is not None:
            state = reconcile(state)
            save_checkpoint(state, path)
        elif state["messages"][-1]["role"] == "assistant":
            return state
    while state["turns"] < MAX_TURNS:
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
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
