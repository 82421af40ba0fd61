"""满分（另一种写法）：append_ledger 写完一行、flush 之后调用 os.sync()（把所有文件系统的脏数据连同目录项一起写到磁盘，
Linux 上它等写完才返回），不分别 fsync 文件和文件夹；run_agent 的台账写成 Path(path).parent / "ledger.jsonl"
（和 ledger_path(path) 是同一个文件，只有文件名时 parent 是 "."），循环写成 while True、先判断轮数。"""
# %% append_ledger
def append_ledger(path, record):
    with Path(path).open("a", encoding="utf-8") as ledger:
        print(json.dumps(record, ensure_ascii=False), file=ledger, flush=True)
    os.sync()
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
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
