"""满分（另一种写法）：run_agent 的循环写成 for _ in range(state["turns"], MAX_TURNS)（turns 接着数），
续跑的判断写成 if state and state["pendingToolUse"]，从头开始用 or 短路建新的状态。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client if client is not None else make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state and state["pendingToolUse"]:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    state = state or {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                      "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    for _ in range(state["turns"], MAX_TURNS):
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        state["pendingToolUse"] = None
        for block in response.content:
            if block.type == "tool_use":
                state["pendingToolUse"] = {"id": block.id, "name": block.name, "input": block.input}
                break
        save_checkpoint(state, path)  # 存档点 A
        call = state["pendingToolUse"]
        if call is None:
            break
        output = execute_with_ledger(call, ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
