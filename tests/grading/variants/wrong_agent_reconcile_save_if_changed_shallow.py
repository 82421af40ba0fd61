"""错：续跑时 state = dict(loaded) 以为复制了一份，对账之后用 state["messages"] != loaded["messages"] 判断「补了结果才存档」：
浅复制的两份共用同一个 messages 列表，reconcile 就地追加时两边永远相等，对账后的存档被跳过；这时崩溃，磁盘上还是那个悬空调用。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    loaded = load_checkpoint(path)
    if loaded is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    else:
        state = dict(loaded)  # 复制一份，不动读出来的那份
        if state["pendingToolUse"] is not None:
            state = reconcile(state)
            if state["messages"] != loaded["messages"]:  # 对账真的补了结果才值得存
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
