"""错误：run_agent 续跑时先自己读一遍台账打印进度（for line in open(...): json.loads(line)），没处理崩溃留下的末尾半行——
追加被打断过的台账一续跑就抛 JSONDecodeError，agent 再也起不来（课程的 read_ledger 会丢掉并截掉那半行）。"""
# %% run_agent
def _progress(ledger):
    if not Path(ledger).exists():
        return
    with open(ledger, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    done = sum(1 for r in records if r.get("type") == "outcome")
    print(f"台账里有 {len(records)} 条记录，{done} 个调用已有结果")


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    else:
        _progress(ledger)
        if state["pendingToolUse"] is not None:
            state = reconcile(state, ledger)
            save_checkpoint(state, path)
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
