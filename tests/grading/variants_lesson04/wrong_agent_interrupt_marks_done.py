"""错误：run_agent「优雅地处理中断」：执行工具时遇到 KeyboardInterrupt，就补一条「已中断」的 tool_result、清空 pendingToolUse、
存档点 B 存一次再抛出去。信可能已经交给服务器，检查点却说这次调用已经有了结果，续跑时不再对账：台账里只有 intent 的这次
调用永远不会去按键问服务端，模型读到「已中断」会再发一封（新的 id、新的键）。课文：结果不确定的调用要留着悬空，续跑时
按台账对账。"""
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
        try:
            output = execute_with_ledger(state["pendingToolUse"], ledger)
        except KeyboardInterrupt:
            state["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_use.id, "content": "已中断：用户停止了执行"}]})
            state["pendingToolUse"] = None
            save_checkpoint(state, path)
            raise
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
