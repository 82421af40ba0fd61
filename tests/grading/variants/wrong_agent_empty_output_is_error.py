"""错：run_agent 把空的输出也当成失败（is_error = 输出为空或以「错误」开头）：读到一个空文件、一个空文件夹是成功的结果。课程的规则是只有以「错误」开头的文本才表示工具失败。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)  # 对账的结果和存档点 B 一样要落盘
    elif state["messages"][-1]["role"] == "assistant":
        return state  # 停在最后一轮的存档点 A：任务已经做完

    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)  # 存档点 A
        if tool_use is None:
            break
        output = execute_tool(tool_use.name, tool_use.input)
        result = {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                  "is_error": not output.strip() or output.startswith("错误")}
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
