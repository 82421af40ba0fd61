"""错误：续跑时对账补的是 is_error（悬空的是 send_email 或没提过的工具，结果未知），就认为那一轮「没有结果、作废」，把 turns 减 1 再存档。那次模型调用确实发生过：turns 跨重启原样接着数，否则一个总在 send_email 里崩溃的任务永远碰不到 MAX_TURNS。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    """运行 task，直到模型不再调用工具或 turns 达到 MAX_TURNS；返回最终状态。

    path 上没有检查点：从 task 开始一个新任务。有检查点：从它续跑，任务以检查点里记的为准——
    pendingToolUse 不是 None 就先 reconcile 并存档；最后一条消息已经是模型的收尾回复，就原样返回、不再调用模型。
    每一轮在存档点 A 和存档点 B 各调用一次 save_checkpoint(state, path)；最后一轮没有工具调用，只存存档点 A。
    工具出错时（execute_tool 返回的文本以「错误」开头），tool_result 带 is_error: True，content 是那段错误文本。
    """
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        if state["messages"][-1]["content"][0].get("is_error") is True:  # 对账补的是 is_error 结果
            state["turns"] -= 1  # 结果未知的那一轮作废，不计数
        save_checkpoint(state, path)  # 对账的结果和存档点 B 一样要落盘
    elif state["messages"][-1]["role"] == "assistant":
        return state  # 停在最后一轮的存档点 A：任务已经做完

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
        output = execute_tool(tool_use.name, tool_use.input)
        result = {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                  "is_error": output.startswith("错误")}
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
