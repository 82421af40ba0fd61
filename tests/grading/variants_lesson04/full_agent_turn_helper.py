"""满分（另一种写法）：run_agent 拆成几个小函数（额外单元格里）：_new_state、_resume、_take_turn（跑一轮，返回是否结束）；
主循环是 while True，turns 用满就 break。存档点、台账、计数都和课文一样。"""
# %% extra after execute_with_ledger
def _new_state(task):
    return {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
            "messages": [{"role": "user", "content": task}], "pendingToolUse": None}


def _resume(state, path, ledger):
    if state.get("pendingToolUse") is None:
        return state
    state = reconcile(state, ledger)
    save_checkpoint(state, path)
    return state


def _take_turn(state, client, path, ledger):
    """跑一轮；模型不再要工具时返回 True。"""
    state["turns"] += 1
    response = client.messages.create(messages=state["messages"], **request_params())
    state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
    state["messages"].append(assistant_message(response))
    calls = [block for block in response.content if block.type == "tool_use"]
    if not calls:
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 A
        return True
    call = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input}
    state["pendingToolUse"] = call
    save_checkpoint(state, path)  # 存档点 A
    output = execute_with_ledger(call, ledger)
    state["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"],
                                                            "content": output}]})
    state["pendingToolUse"] = None
    save_checkpoint(state, path)  # 存档点 B
    return False
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    ledger = ledger_path(path)
    loaded = load_checkpoint(path)
    state = _new_state(task) if loaded is None else _resume(loaded, path, ledger)
    while True:
        if state["turns"] >= MAX_TURNS:
            break
        if _take_turn(state, client, path, ledger):
            break
    return state
