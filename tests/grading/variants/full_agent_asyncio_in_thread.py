"""满分：run_agent 的循环写成协程（async def），模型和工具经 asyncio.to_thread 调用；notebook 的 kernel 里已经有一个
正在运行的事件循环，asyncio.run 不能直接用，所以在一个新线程里 asyncio.run 它、join 等它结束，异常带回调用方。"""
# %% run_agent
import asyncio
import threading


async def _agent_loop(state, client, path):
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = await asyncio.to_thread(client.messages.create, messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        call = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = None if call is None else {"id": call.id, "name": call.name, "input": call.input}
        save_checkpoint(state, path)
        if call is None:
            break
        output = await asyncio.to_thread(execute_tool, call.name, call.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state


def _run_coroutine(coroutine):
    box = {}

    def target():
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as error:
            box["error"] = error

    worker = threading.Thread(target=target, name="agent-loop")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


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
    return _run_coroutine(_agent_loop(state, client, path))
