"""错误（拿错了 id）：run_agent 在循环里交给 execute_with_ledger 的调用用的是这条回复的 id（response.id，msg_01…），
而不是工具调用的 id（tool_use.id，toolu_01…）；pendingToolUse 和 tool_result 里用的还是 tool_use.id。台账里的
intent、outcome 记在消息 id 名下，幂等键也是它：续跑时对账按悬空调用的 tool_use id 找台账，什么也找不到，
当成从没开始，再执行一次（换了一把键，服务端认不出，第二封信发了出去）。"""
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
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)  # 存档点 A
        if tool_use is None:
            break
        output = execute_with_ledger({"id": response.id, "name": tool_use.name, "input": tool_use.input}, ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
