"""对：调用模型遇到 APIStatusError（529 overloaded 这类）时等一会儿重试，最多三次，还不行就把异常抛出去；重试调用模型没有副作用（SDK 自己默认也重试两次）。"""
# %% run_agent
import time

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
        for attempt in range(3):
            try:
                response = client.messages.create(messages=state["messages"], **request_params())
                break
            except anthropic.APIStatusError:
                if attempt == 2:
                    raise
                time.sleep(0.2 * (attempt + 1))
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
