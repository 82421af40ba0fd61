"""错误：run_agent 把对账挪进循环开头（「每一轮先把悬空调用了结」），续跑时不在循环之前对账。检查点停在最后一轮的存档点 A
（turns 已经等于 MAX_TURNS、pendingToolUse 悬空）时，循环一次也不进，悬空调用既不对账也不补结果，返回的状态里 tool_use
还缺着 tool_result；信如果没发出去，就永远不会发。课文：续跑时 pendingToolUse 不是 None 就 reconcile(state, ledger_path(path))，
然后存一次档。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}

    while state["turns"] < MAX_TURNS:
        if state["pendingToolUse"] is not None:
            state = reconcile(state, ledger)
            save_checkpoint(state, path)
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
