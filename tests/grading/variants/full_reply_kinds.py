"""满分：按内容块找工具调用（for + match 逐块看，不看 stop_reason），自己把每个块转成 dict，
turns 用完就停；停止原因不管是 max_tokens、stop_sequence、refusal 还是空的 end_turn 都一样处理。"""
# %% run_agent
def _blocks(response):
    """The reply's blocks as plain dicts, and its tool call (or None)."""
    blocks, call = [], None
    for block in response.content:
        match block.type:
            case "tool_use":
                blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
                call = call or blocks[-1]
            case "text":
                blocks.append({"type": "text", "text": block.text})
    return blocks, call


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = make_client() if client is None else client
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state
    while state["turns"] < MAX_TURNS:
        response = client.messages.create(messages=state["messages"], **request_params())
        state["turns"] += 1
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        blocks, call = _blocks(response)
        state["messages"].append({"role": "assistant", "content": blocks})
        state["pendingToolUse"] = None if call is None else {key: call[key] for key in ("id", "name", "input")}
        save_checkpoint(state, path)
        if call is None:
            return state
        output = execute_tool(call["name"], call["input"])
        result = {"type": "tool_result", "tool_use_id": call["id"], "content": output}
        if output.startswith("错误"):
            result["is_error"] = True
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
