"""满分：pendingToolUse 用 SDK 块自己的 model_dump(include={"id", "name", "input"}) 得到（只有这三个字段，键的顺序
和参考答案不同）；工具调用用 isinstance(block, ToolUseBlock) 找。"""
# %% run_agent
from anthropic.types import ToolUseBlock


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client if client is not None else make_client()
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
        usage = response.usage
        state["tokensUsed"] = usage.input_tokens + usage.output_tokens
        state["messages"].append(assistant_message(response))
        call = next((block for block in response.content if isinstance(block, ToolUseBlock)), None)
        state["pendingToolUse"] = call.model_dump(include={"id", "name", "input"}) if call else None
        save_checkpoint(state, path)  # 存档点 A
        if call is None:
            break
        output = execute_tool(call.name, call.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
