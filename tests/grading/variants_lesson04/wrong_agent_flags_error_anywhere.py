"""错误：run_agent 的 tool_result 只要输出里「提到」错误（"错误" in output）就标 is_error: True——成功的输出中间提到「错误」
（一行日志）也被当成了失败。第 3 课的定义：只有以「错误」开头的输出才表示工具失败。"""
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
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        result = {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                  "is_error": "错误" in output}
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
