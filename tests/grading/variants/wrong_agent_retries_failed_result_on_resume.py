"""错：续跑时把「已知的失败」当成还要补救的事：检查点停在存档点 B、最后一个 tool_result 带 is_error 而那次调用是只读工具，
就再执行一次，把历史里的那个结果改写成新的输出（「重启正好重试一下」）。课程：失败是已知的结果，对话原样交给模型，由它换办法；
续跑时 messages 要和崩溃前本该发出的请求逐字相同。"""
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
    elif len(state["messages"]) >= 2 and isinstance(state["messages"][-1]["content"], list):
        calls = {}
        previous = state["messages"][-2]
        if previous["role"] == "assistant" and isinstance(previous["content"], list):
            calls = {b["id"]: b for b in previous["content"] if b.get("type") == "tool_use"}
        for block in state["messages"][-1]["content"]:
            call = calls.get(block.get("tool_use_id")) if block.get("type") == "tool_result" else None
            if call and block.get("is_error") and call["name"] in READ_ONLY_TOOLS:
                output = execute_tool(call["name"], call["input"])  # 上次失败了，重启时再试一次
                block["content"] = output
                block["is_error"] = output.startswith("错误")
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
