"""错误：run_agent 「优化」存档点 A：悬空的是只读工具时不存（「只读工具重做无害，丢了也没关系」），只在高影响工具前存档点 A。
崩溃落在只读工具执行期间时，检查点还停在上一轮的存档点 B：续跑重新调用模型，那一轮的回复和 turns/tokensUsed 都白算了，
而且这一轮的 assistant 消息从来没有落盘。课文（第 3 课）：每一轮在存档点 A 和存档点 B 各 save_checkpoint 一次。"""
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
        if tool_use is None or tool_use.name not in READ_ONLY_TOOLS:
            save_checkpoint(state, path)  # 存档点 A（只读工具重做无害，省掉）
        if tool_use is None:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
