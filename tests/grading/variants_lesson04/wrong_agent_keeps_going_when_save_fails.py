"""错：存档点 A、B 保存失败（磁盘满了）时只打印一句，接着执行工具：没存下存档点 A 就发信，这时崩溃，重启后检查点里
没有这次调用，模型会重新提出一个新 id 的调用，键变了，信就发了两次。"""
# %% run_agent
def _try_to_save(state, path):
    try:
        save_checkpoint(state, path)
    except OSError as error:
        print("存档失败，接着做：", error)


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
        _try_to_save(state, path)  # 存档点 A
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
        _try_to_save(state, path)  # 存档点 B
    return state
