"""满分（另一种写法）：run_agent 的台账路径用 str(Path(path).with_name("ledger.jsonl"))（和 ledger_path 一样：检查点旁边的
ledger.jsonl，以 str 传下去）；循环里自己分两路：只读工具直接 execute_tool，其余的走 execute_with_ledger（它对只读工具
本来也是直接执行，结果一样）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    ledger = str(Path(path).with_name("ledger.jsonl"))
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
        calls = [block for block in response.content if block.type == "tool_use"]
        state["pendingToolUse"] = ({"id": calls[0].id, "name": calls[0].name, "input": calls[0].input}
                                   if calls else None)
        save_checkpoint(state, path)  # 存档点 A
        if not calls:
            break
        call = state["pendingToolUse"]
        if call["name"] in READ_ONLY_TOOLS:
            output = execute_tool(call["name"], call["input"])
        else:
            output = execute_with_ledger(call, ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
