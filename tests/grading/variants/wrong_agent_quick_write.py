"""错：run_agent 不调用 save_checkpoint，每个存档点用自己的一句 open(path, "w") 写检查点。
进程崩溃时没事（内容已在页缓存里），断电时 path 上可能是空文件或半截，而工具已经执行了。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()

    def store(current):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(current, handle, ensure_ascii=False)

    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        store(state)
    elif state["messages"][-1]["role"] == "assistant":
        return state
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        call = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": call.id, "name": call.name, "input": call.input} if call else None
        store(state)
        if call is None:
            break
        result = execute_tool(call.name, call.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": result,
             "is_error": result.startswith("错误")}]})
        state["pendingToolUse"] = None
        store(state)
    return state
