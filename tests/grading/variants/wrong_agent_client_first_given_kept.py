"""错：run_agent 记住第一次传进来的 client，以后再传进来别的 client 也还用第一次那个（「同一个 kernel 里客户端都一样」）；
client 是 None 时倒是照样 make_client()。notebook 里先传 crashing_client 模拟崩溃、再传 counting_client 重启，
第二次用的仍是会崩溃的那个。课文：用这一次传进来的 client 调用模型，只有它是 None 时才用 make_client()。"""
# %% run_agent
_FIRST_GIVEN = None


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    global _FIRST_GIVEN
    if client is None:
        client = make_client()
    else:
        if _FIRST_GIVEN is None:
            _FIRST_GIVEN = client
        client = _FIRST_GIVEN
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
