"""错误（事故之后「防重复」）：run_agent 在循环里执行工具之前，先在对话里找同名、同参数、已经有结果的调用；
找到了就直接拿那次的结果顶上，不执行（「模型又要发一封一模一样的信，肯定是重复了」）。可两次参数相同的调用
是两次不同的调用：课文第 3 节，不同的调用键一定不同，「保证两封本来就该发的信不会被误当成一封」——
模型要再发一次提醒、再扣一笔同样金额的款、再追加同样的一行，都被悄悄吞掉，还告诉模型「做了」。"""
# %% run_agent
def _earlier_result(messages, name, tool_input):
    answered = {}
    for message in messages:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result" and not block.get("is_error"):
                    answered[block["tool_use_id"]] = block.get("content", "")
    for message in messages:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            for block in message["content"]:
                if (block.get("type") == "tool_use" and block["name"] == name and block["input"] == tool_input
                        and block["id"] in answered):
                    return answered[block["id"]]
    return None


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
        output = None
        if tool_use.name not in READ_ONLY_TOOLS:
            output = _earlier_result(state["messages"][:-1], tool_use.name, tool_use.input)
        if output is None:
            output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
