"""满分：轮次记在局部变量 turn 里、每轮写回 state["turns"]；客户端等确定要调用模型时才建（任务已经做完就不建）；
按 stop_reason 分开处理：tool_use 以外的各种停止原因（end_turn、max_tokens、stop_sequence、refusal……）只要回复里没有
tool_use 块就收尾，有就照样执行（停止原因不可靠，按内容块判断）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state.get("pendingToolUse"):
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        print("任务已经做完，不再调用模型")
        return state
    if client is None:
        client = make_client()

    turn = state["turns"]
    while turn < MAX_TURNS:
        turn += 1
        state["turns"] = turn
        response = client.messages.create(messages=state["messages"], **request_params())
        usage = response.usage
        state["tokensUsed"] = usage.input_tokens + usage.output_tokens
        state["messages"].append(assistant_message(response))
        calls = [block for block in response.content if block.type == "tool_use"]
        if calls:
            call = calls[0]
            state["pendingToolUse"] = {"id": call.id, "name": call.name, "input": call.input}
        else:
            state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 A
        if not calls:
            if response.stop_reason == "max_tokens":
                print("回复在 max_tokens 处截断了")
            elif response.stop_reason == "refusal":
                print("模型拒绝了这个请求")
            break
        output = execute_tool(call.name, call.input)
        failed = output.startswith("错误")
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": failed}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
