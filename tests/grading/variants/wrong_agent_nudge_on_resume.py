"""错：从检查点续跑时（不论是否对过账），先往 messages 末尾加一句 user 消息「（进程重启了，请从刚才停下的地方继续。）」再调用模型：
对话和一口气跑完的不一样，这句话也存进了检查点；课文要的是「直接用这份 messages 再调用一次模型」。"""
# %% run_agent
RESUME_NOTE = "（进程重启了，请从刚才停下的地方继续。）"


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    else:
        if state["pendingToolUse"] is not None:
            state = reconcile(state)
        elif state["messages"][-1]["role"] == "assistant":
            return state
        state["messages"].append({"role": "user", "content": RESUME_NOTE})
        save_checkpoint(state, path)

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
