"""错：run_agent 把每个 path 最新的状态记在全局字典里，登记一个 atexit 函数在 kernel 关闭时再存一遍，「以防最后的进度
丢了」。调用模型抛出异常（API 529）之后，kernel 关闭时存下去的是已经把这次失败的调用算进 turns 的状态，和在 finally 里
存档（wrong_agent_finally_save）是同一个错，只是晚一点发生。"""
# %% run_agent
import atexit

_latest_states = {}


@atexit.register
def _save_latest_states():
    for where, latest in _latest_states.items():
        save_checkpoint(latest, where)


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
    _latest_states[os.path.abspath(path)] = state
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
        result = {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                  "is_error": output.startswith("错误")}
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
