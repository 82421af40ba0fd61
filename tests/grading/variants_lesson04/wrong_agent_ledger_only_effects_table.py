"""错误：run_agent 只让 EFFECTS 表里列为 idempotent / non_idempotent 的工具走 execute_with_ledger（「有副作用的工具都在表里」），
表外的工具照第 3 课直接 execute_tool。send_email、charge_card、add_label 这些都在表里，可模型要的是表外的高影响工具
（deploy_service、refund_order……）时，它不记 intent、不带键：崩溃在执行之后、存档点 B 之前，续跑时台账里没有它，
对账当成从没开始，再做一次。课文：循环里执行工具，把 execute_tool(...) 换成 execute_with_ledger(...)——只有 READ_ONLY_TOOLS 里的不记。"""
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
        save_checkpoint(state, path)
        if tool_use is None:
            break
        if EFFECTS.get(tool_use.name) in ("idempotent", "non_idempotent"):
            output = execute_with_ledger(state["pendingToolUse"], ledger)
        else:
            output = execute_tool(tool_use.name, tool_use.input)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
