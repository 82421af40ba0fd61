"""错误（台账被几个任务共用）：run_agent 从头开始（path 上没有检查点）时，先把检查点旁边的台账清空（「新任务不该看到
上一个任务的记录」）。可台账只追加、不修改；ledger_path(path) 只取 path 所在的文件夹，同一个文件夹里另一份检查点
（另一个任务）也用这本台账：它若正停在悬空调用上，intent、outcome 被清掉，续跑时当成从没开始——charge_card 这种
不认键的工具就再扣一次钱，已经发出的信（服务器按键查得到）也要重新问一遍。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        if ledger.exists():
            with open(ledger, "w", encoding="utf-8") as stale:
                stale.flush()
                os.fsync(stale.fileno())
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
        save_checkpoint(state, path)  # 存档点 A
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
