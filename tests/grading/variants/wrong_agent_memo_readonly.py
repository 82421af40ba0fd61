"""错：run_agent 把只读工具的输出按「工具名 + 参数」缓存在模块级的 dict 里——「只读工具执行多少次结果都一样」。
只读说的是不改变外部世界，不是输出不变：list_sent_emails 在 send_email 之后再查，拿到的还是发信之前的空列表，
模型以为信没发出去、再发一封；同一个 kernel 里先后两次运行（notebook 的事故重演：先投递一封、再续跑）也读到旧的结果。"""
# %% run_agent
_READ_CACHE = {}


def _run_tool(name, tool_input):
    if name not in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    key = (name, json.dumps(tool_input, sort_keys=True, ensure_ascii=False))
    if key not in _READ_CACHE:
        _READ_CACHE[key] = execute_tool(name, tool_input)
    return _READ_CACHE[key]


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
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = _run_tool(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id,
                                                               "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
