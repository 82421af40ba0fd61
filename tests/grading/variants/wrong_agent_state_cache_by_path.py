"""错：run_agent 把每个 path 最近存下的状态留在内存里（_LAST[path]），再次运行时先用内存里的，没有才 load_checkpoint——
「同一个 kernel 里不必再读一遍文件」。可磁盘上的文件可能已经变了：课文说想开始另一个任务就「先把旧文件挪走」，
挪走之后它仍然续跑旧任务；文件坏了也不报 ValueError；别的进程续跑过、写了新的检查点，它又从旧的一份接着跑
（对账过的调用再对一次、重发）。课文：开头先 load_checkpoint(path)。"""
# %% run_agent
_LAST = {}


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    key = os.path.abspath(path)
    state = _LAST.get(key)
    if state is None:
        state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state
    _LAST[key] = state
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_tool(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id,
                                                               "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
