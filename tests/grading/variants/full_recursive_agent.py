"""满分：run_agent 的循环写成递归的 _turn(state, client, path)：每调用一次走一轮，没有工具调用或 turns 用满就返回；
恢复时的三种情况用 functools.singledispatch 之外最朴素的 if 链，状态用 json 往返复制一份再用（不改 load 的返回值）。"""
# %% run_agent
def _turn(state, client, path):
    if state["turns"] >= MAX_TURNS:
        return state
    state["turns"] += 1
    response = client.messages.create(messages=state["messages"], **request_params())
    state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
    state["messages"].append(assistant_message(response))
    calls = [block for block in response.content if block.type == "tool_use"]
    state["pendingToolUse"] = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input} if calls else None
    save_checkpoint(state, path)  # 存档点 A
    if not calls:
        return state
    output = execute_tool(calls[0].name, calls[0].input)
    state["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": calls[0].id, "content": output, "is_error": output.startswith("错误")}]})
    state["pendingToolUse"] = None
    save_checkpoint(state, path)  # 存档点 B
    return _turn(state, client, path)


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = make_client() if client is None else client
    loaded = load_checkpoint(path)
    if loaded is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
        return _turn(state, client, path)
    state = json.loads(json.dumps(loaded, ensure_ascii=False))
    if state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state
    return _turn(state, client, path)
