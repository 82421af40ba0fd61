"""错误（「收尾」别的调用）：run_agent 每次启动先翻台账，把只有 intent、没有 outcome、又不是这次悬空调用的记录都补一条 outcome「（未完成，已放弃）」，「免得下次又对它对账」。可同一个文件夹里别的任务也用这本台账，那些调用的结果并不知道；写成 outcome，那个任务续跑时就把「放弃」当作确定的结果复用。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    pending_id = state["pendingToolUse"]["id"] if state and state.get("pendingToolUse") else None
    records = read_ledger(ledger)
    done = {r.get("toolUseId") for r in records if r.get("type") == "outcome"}
    for r in records:
        if r.get("type") == "intent" and r.get("toolUseId") not in done and r.get("toolUseId") != pending_id:
            append_ledger(ledger, {"type": "outcome", "toolUseId": r["toolUseId"], "output": "（未完成，已放弃）"})
            done.add(r.get("toolUseId"))
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
