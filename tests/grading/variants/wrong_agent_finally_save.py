"""错：run_agent 把每一轮包在 try/finally 里，finally 再存一次档，「出了什么事都先把状态存下来」。可调用模型抛异常
时（网络断了、API 报错，notebook 里 crashing_client 抛的 SimulatedCrash），turns 已经加了 1、模型却没有回复，
finally 把这个 turns 存进了存档点 B 的位置：重启后 turns 比真正调用过模型的次数多（notebook 的演示里续跑的 turns
和一口气跑完的不一样，最后一行是 False）。课文：turns 数的是这个任务一共调用了几次模型；崩溃在 B 之后、A 之前，
磁盘上应该还是上一个存档点 B。"""
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
        try:
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
            state["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                 "is_error": output.startswith("错误")}]})
            state["pendingToolUse"] = None
        finally:
            save_checkpoint(state, path)  # 存档点 B，出错时也存
    return state
