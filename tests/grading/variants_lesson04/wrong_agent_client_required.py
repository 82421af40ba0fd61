"""错：run_agent 直接用传进来的 client，忘了它可以是 None：run_agent(task) 或 client=None（签名和 docstring 都允许）
一调用模型就 AttributeError。课文：用传进来的 client 调用模型，只有它是 None 时才 make_client()。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    path = Path(path)
    ledger = path.parent / "ledger.jsonl"
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"]:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    while True:
        if state["turns"] >= MAX_TURNS:
            return state
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        calls = [block for block in response.content if block.type == "tool_use"]
        state["pendingToolUse"] = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input} if calls else None
        save_checkpoint(state, path)
        if not calls:
            return state
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": calls[0].id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
