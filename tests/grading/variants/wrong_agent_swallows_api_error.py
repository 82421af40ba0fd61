"""错：调用模型抛异常（API 529 overloaded）时「不让程序崩」：打印一句、把 turns 退回去、返回 state；调用方以为任务做完了，守护进程也不会再拉起它（notebook：异常要让调用方知道）。"""
# %% run_agent
import anthropic


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
        try:
            response = client.messages.create(messages=state["messages"], **request_params())
        except anthropic.APIError as err:
            print("调用模型失败，稍后再试：", err)
            state["turns"] -= 1
            return state
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
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
