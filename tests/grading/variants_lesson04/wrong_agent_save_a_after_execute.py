"""错误：run_agent 把存档点 A 挪到执行工具之后（先 execute_with_ledger，再一次存下 assistant 消息和结果）：
崩溃落在执行之后、存档之前时，检查点里根本没有这次调用，续跑时模型会重新提出一个新 id 的调用。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        if tool_use is None:
            state["pendingToolUse"] = None
            save_checkpoint(state, path)
            break
        call = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input}
        output = execute_with_ledger(call, ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
