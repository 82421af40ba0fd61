"""错误：run_agent 续跑时，悬空的是只读工具就只把 pendingToolUse 清成 None、不补 tool_result（「只读工具不记台账，不用对账」），
对话末尾的 tool_use 没有配对，下一次调用模型 API 返回 400。课文第 5 节：悬空的是只读工具，就和第 3 课一样再执行一次；
run_agent 续跑时 pendingToolUse 不是 None 就调用 reconcile。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        if state["pendingToolUse"]["name"] in READ_ONLY_TOOLS:
            state["pendingToolUse"] = None  # 只读工具：台账里没有它，也不用对账，让模型接着来
        else:
            state = reconcile(state, ledger)
        save_checkpoint(state, path)

    while state["turns"] < MAX_TURNS:
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
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
