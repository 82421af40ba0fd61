"""错误：run_agent 续跑时不调用 reconcile：悬空调用直接再交给 execute_with_ledger（「反正带着同一把键，服务器会认出重复」）——
台账里已有 outcome 也再执行一次，服务端连不上时把执行失败当成确定的结果，不认键的高影响工具（charge_card 等）会做两遍。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        pending = state["pendingToolUse"]
        output = execute_with_ledger(pending, ledger)  # 同一把键：服务器认得出来
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": pending["id"], "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
