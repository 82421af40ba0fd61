"""错误：run_agent 续跑时，悬空的是幂等写（EFFECTS 里是 "idempotent"：set_ticket_status、write_file、add_label）就像只读工具一样
直接 execute_tool 再执行一次、补上结果，不经 reconcile（「第 2 节说幂等写能再执行」）；课文第 5 节：只有 READ_ONLY_TOOLS 里的工具
才重跑，其余都要按台账对账——台账里已有 outcome 时它又做了一遍，也不带键。"""
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
        if EFFECTS.get(pending["name"]) == "idempotent":
            output = execute_tool(pending["name"], pending["input"])
            state["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": pending["id"], "content": output}]})
            state["pendingToolUse"] = None
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
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
