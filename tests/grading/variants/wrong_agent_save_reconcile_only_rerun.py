"""错：恢复时对账之后，只有重新执行过工具（悬空的是只读工具）才存档；send_email 这类补 is_error 的不存
（「什么也没执行，没什么可存的」）。课程第 3 节：不论哪条路，对账之后立刻存一次档——对账的结果和存档点 B 一样要落盘。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        rerun = state["pendingToolUse"]["name"] in READ_ONLY_TOOLS
        state = reconcile(state)
        if rerun:
            save_checkpoint(state, path)  # 重新执行过工具：结果要落盘
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
