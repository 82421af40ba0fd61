"""错：续跑时「最后一条消息是工具结果才接着跑，否则就当任务做完了原样返回」：判断写成
最后一条是 user 消息、且它的最后一块是 tool_result。对话末尾是一条普通的 user 消息（只有任务本身、用户补了一句话，
或者 tool_result 后面跟着用户的一段文字：API 允许）时，任务被当成已经做完，模型一次也不调用，守护进程每次重启都一样。
课文：只有最后一条是 assistant 消息才原样返回；其余情况直接进入循环。"""
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
    else:
        last = state["messages"][-1]
        blocks = last["content"] if isinstance(last["content"], list) else []
        if not (last["role"] == "user" and blocks and blocks[-1].get("type") == "tool_result"):
            return state  # 不是停在工具结果上：任务已经做完
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
        state["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id,
                                                               "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
