"""错：run_agent 接住 load_checkpoint 的 ValueError（版本不对、只写了一半），从头开始一个新任务（第 3 课：读不出的检查点
要报错、留给人看；从头再来，已经发出去的邮件可能再发一遍。这一课的 run_agent 照旧要守这一条）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    ledger = str(Path(path).with_name("ledger.jsonl"))
    try:
        state = load_checkpoint(path)
    except ValueError as error:  # 旧的、坏的检查点留着也没用：从头再来
        print("检查点读不出来，从头开始：", error)
        state = None
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
