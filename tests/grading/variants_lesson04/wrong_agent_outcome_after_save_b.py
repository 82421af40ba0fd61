"""错误：run_agent 不用 execute_with_ledger，自己写：intent（append_ledger）→ 带键 execute_tool → tool_result 进 messages
→ 存档点 B → 再追加 outcome。课文给的次序是 A → intent → 执行 → outcome → B；outcome 写在 B 之后，两者之间断电，台账末尾
可能留下写了一半的 outcome：检查点里已没有悬空调用，续跑不对账，没人截掉这半行，下一条 intent 接在它后面，台账坏掉。"""
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
        call = state["pendingToolUse"]
        effect = call["name"] not in READ_ONLY_TOOLS
        if effect:
            append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"],
                                   "input": call["input"]})
            output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
        else:
            output = execute_tool(call["name"], call["input"])
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
        if effect:
            append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return state
