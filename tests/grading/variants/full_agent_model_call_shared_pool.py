"""满分：run_agent 调用模型都交给模块里建好的一个线程池（ThreadPoolExecutor，只建一次、一直用），主线程最多等 120 秒
（.result(timeout=120)），模型调用抛的异常由 .result() 原样抛给调用方；其余照课文。线程池空闲的工作线程一直在（kernel 里
也一样），什么也不做。"""
# %% run_agent
from concurrent.futures import ThreadPoolExecutor

MODEL_TIMEOUT = 120
_model_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="model-call")


def _ask_model(client, messages):
    future = _model_pool.submit(client.messages.create, messages=messages, **request_params())
    return future.result(timeout=MODEL_TIMEOUT)


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
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
        response = _ask_model(client, state["messages"])
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        call = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = None if call is None else {"id": call.id, "name": call.name, "input": call.input}
        save_checkpoint(state, path)
        if call is None:
            break
        output = execute_tool(call.name, call.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
