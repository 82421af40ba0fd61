"""错：run_agent 续跑时只把悬空的 send_email 交给 reconcile，别的悬空调用（「反正不是发信」）就在 run_agent 里直接再执行一次、
补上结果再存档（黑名单只有 send_email）：悬空的是 notify_oncall、refund_order 这类课程没提过的高影响工具时，它被重新执行了。
课文：pendingToolUse 不是 None 就先 reconcile 并存档；不在 READ_ONLY_TOOLS 里的一律不执行。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        pending = state["pendingToolUse"]
        if pending["name"] == "send_email":  # 发信不能重来，交给对账
            state = reconcile(state)
        else:  # 其余的再执行一次就好
            output = execute_tool(pending["name"], pending["input"])
            state["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                 "is_error": output.startswith("错误")}]})
            state["pendingToolUse"] = None
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state

    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_tool(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
