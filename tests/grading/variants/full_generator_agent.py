"""满分：run_agent 用生成器写——steps() 每走一步 yield 一次（存档点 A、存档点 B 各是一步），run_agent 把它跑完；恢复判断用 match。"""
# %% run_agent
from functools import partial


def _fresh(task):
    return {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
            "messages": [{"role": "user", "content": task}], "pendingToolUse": None}


def _steps(state, client, save):
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        message = assistant_message(response)
        state["messages"].append(message)
        match [b for b in message["content"] if b["type"] == "tool_use"]:
            case [call, *_]:
                state["pendingToolUse"] = {k: call[k] for k in ("id", "name", "input")}
            case []:
                state["pendingToolUse"] = None
        save(state)
        yield "A"
        call = state["pendingToolUse"]
        if call is None:
            return
        output = execute_tool(call["name"], call["input"])
        result = {"type": "tool_result", "tool_use_id": call["id"], "content": output}
        if output.startswith("错误"):
            result["is_error"] = True
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save(state)
        yield "B"


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = make_client() if client is None else client
    save = partial(save_checkpoint, path=path)
    match load_checkpoint(path):
        case None:
            state = _fresh(task)
        case {"pendingToolUse": dict()} as loaded:
            state = reconcile(loaded)
            save(state)
        case {"messages": [*_, {"role": "assistant"}]} as loaded:
            return loaded
        case loaded:
            state = loaded
    for _ in _steps(state, client, save):
        pass
    return state
