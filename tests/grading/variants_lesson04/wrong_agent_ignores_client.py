"""错：run_agent 不管传进来什么 client，一律自己 make_client()。notebook 里崩溃演示传进去的 crashing_client、
重启时的计数客户端都被无视。课文：用传进来的 client 调用模型，只有它是 None 时才 make_client()。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = make_client()  # 「反正都是同一个模型」
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
