"""满分（契约允许的写法）：tool_result 的 content 在工具输出前面加一句话（「工具的输出：」再换行），输出原样跟在后面；run_agent 和 reconcile 都这样，
其余和参考答案一样。之前评分器的参考答案只在对话一字不差时才拿到学生那次的回复，22/23，反馈说 tool_use 的 id 不一样。"""
# %% run_agent
def _result(call_id, output):
    result = {"type": "tool_result", "tool_use_id": call_id, "content": f"工具的输出：\n{output}"}
    if output.startswith("错误"):
        result["is_error"] = True
    return result


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
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
        state["messages"].append({"role": "user", "content": [_result(tool_use.id, output)]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        result = _result(pending["id"], execute_tool(pending["name"], pending["input"]))
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
