"""错误：续跑时 reconcile 因台账中间有坏行抛 ValueError，run_agent 就把台账改名挪开、拿一本空台账再对账一次——空台账里没有 intent，悬空调用被当成从没开始、再执行一次（不认键的 charge_card、append_line 就做两遍）。课上说坏了的台账不等于没有记录，要让 ValueError 抛出去等人来看。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = Path(path).with_name("ledger.jsonl")
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        try:
            state = reconcile(state, ledger)
        except ValueError as exc:  # 台账坏了：挪到一边，换一本新的接着跑
            print("台账损坏，已移到 .bad：", exc)
            os.replace(ledger, ledger.with_name(ledger.name + ".bad"))
            state = reconcile(state, ledger)
        save_checkpoint(state, path=path)
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path=path)
        if tool_use is None:
            break
        output = execute_with_ledger(call=state["pendingToolUse"], ledger=ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path=path)
    return state
