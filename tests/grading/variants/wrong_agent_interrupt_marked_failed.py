"""错：怕留下悬空调用，执行工具时用 try/except BaseException 兜住中断（Ctrl-C、SimulatedCrash、SystemExit），
给这次调用补一条「错误：执行被中断，没有完成」的 is_error 结果、存档点 B，再把异常抛出去。可被中断时工具可能已经生效
（信已交给服务器），这是一个结果未知的调用，不是一次已知的失败：重启后检查点里没有悬空调用，模型读到「没有完成」就再发一封
（课文：失败是已知的结果，悬空调用是未知的结果；未知的要留给 reconcile 按工具的性质处理）。"""
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
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)
        if tool_use is None:
            break
        try:
            output = execute_tool(tool_use.name, tool_use.input)
        except BaseException:
            state["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_use.id, "is_error": True,
                 "content": f"错误：{tool_use.name} 执行被中断，没有完成。"}]})
            state["pendingToolUse"] = None
            save_checkpoint(state, path)  # 不留悬空调用
            raise
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
