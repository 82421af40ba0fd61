"""错：run_agent 把第一次用到的 client 存进全局变量 _CLIENT，「免得每次都 make_client()」，以后不管传进来什么都用它。
第一次运行完全正常；同一个 kernel 里再运行（notebook 的演示：崩溃用的 crashing_client、重启用的 counting_client），
传进来的 client 被无视，用的还是第一次那个（演示里是会崩溃的替身）。课文：用传进来的 client 调用模型，只有它是 None 时才用 make_client()。"""
# %% run_agent
_CLIENT = None


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = client if client is not None else make_client()
    client = _CLIENT
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
