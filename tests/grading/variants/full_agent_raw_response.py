"""满分：run_agent 经 client.messages.with_raw_response.create 调用模型，记下响应头里的 request-id（排查问题时要用），
再 .parse() 得到和 create 一样的 Message；其余照课文。"""
# %% run_agent
import logging

log = logging.getLogger("agent")


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = make_client() if client is None else client
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
        raw = client.messages.with_raw_response.create(messages=state["messages"], **request_params())
        log.info("第 %d 轮，request-id %s", state["turns"], raw.headers.get("request-id"))
        response = raw.parse()
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        call = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = None if call is None else {"id": call.id, "name": call.name, "input": call.input}
        save_checkpoint(state, path)
        if call is None:
            break
        output = execute_tool(call.name, call.input)
        result = {"type": "tool_result", "tool_use_id": call.id, "content": output}
        if output.startswith("错误"):
            result["is_error"] = True
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
