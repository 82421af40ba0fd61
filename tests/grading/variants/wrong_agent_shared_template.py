"""错：新任务的初始状态从一个模块级的模板浅拷贝（dict(NEW_STATE, task=task)），再往模板共用的 messages 列表里
append 任务。第一次运行看不出来；同一个 kernel 里第二个新任务的 messages 里还留着上一个任务的整段对话
（notebook 里演示就连着跑好几个新任务）。课文：新任务的 messages 里只有一条 {"role": "user", "content": task}。"""
# %% run_agent
NEW_STATE = {"version": CHECKPOINT_VERSION, "turns": 0, "tokensUsed": 0, "messages": [], "pendingToolUse": None}


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = dict(NEW_STATE, task=task)
        state["messages"].append({"role": "user", "content": task})
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
