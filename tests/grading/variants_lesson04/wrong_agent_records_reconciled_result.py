"""错误：run_agent 续跑时 reconcile 之后，自己再把补回的 tool_result 作为 outcome 追加进台账（「记下来，下次恢复直接复用」）——
服务端答不上来时补的是 is_error 的「结果未知」，它也被记成了 outcome：下次恢复 recovery_action 看到 outcome 就 reuse，
把「未知」当成确定的结果；只读工具重跑的结果也进了台账。课文表格：is_error 和 rerun 时台账不动。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        call_id = state["pendingToolUse"]["id"]
        state = reconcile(state, ledger)
        block = state["messages"][-1]["content"][0]
        append_ledger(ledger, {"type": "outcome", "toolUseId": call_id, "output": block["content"]})
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
