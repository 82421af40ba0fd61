"""错：tokensUsed 在存档点 A 之后才更新（「先存档，再记账」），最后一轮没有工具调用时多存一次把用量补上：存档点 A 的检查点里 tokensUsed 还是上一次响应的用量。A 与 B 之间崩溃、续跑时 turns 已到 MAX_TURNS（对账、存档后不再调用模型），返回的 tokensUsed 就是错的（课文第 3 节：第 3 步更新 tokensUsed，第 6 步才是存档点 A）。"""
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
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None
        save_checkpoint(state, path)  # 存档点 A
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        if tool_use is None:
            save_checkpoint(state, path)  # 把最后一次的用量也存上
            break
        output = execute_tool(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
