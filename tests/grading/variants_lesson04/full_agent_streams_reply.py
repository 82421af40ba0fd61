"""满分（另一种写法）：调用模型用 client.messages.create(..., stream=True)，自己从事件里拼出回复（文字块、tool_use 块的
input_json_delta、message_delta 里的停止原因和 output_tokens），再交给 assistant_message；台账的接法和课文一样。"""
# %% run_agent
import json as _json


def _streamed_reply(client, messages):
    blocks, usage, stop = [], {}, None
    for event in client.messages.create(messages=messages, stream=True, **request_params()):
        if event.type == "message_start":
            usage = {"input_tokens": event.message.usage.input_tokens, "output_tokens": 0}
        elif event.type == "content_block_start":
            blocks.append({**event.content_block.model_dump(exclude_none=True), "partial": ""})
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            blocks[event.index]["text"] += event.delta.text
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            blocks[event.index]["partial"] += event.delta.partial_json
        elif event.type == "message_delta":
            stop, usage["output_tokens"] = event.delta.stop_reason, event.usage.output_tokens
    for block in blocks:
        partial = block.pop("partial")
        if block["type"] == "tool_use":
            block["input"] = _json.loads(partial or "{}")
    return {"role": "assistant", "content": blocks}, usage, stop


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        message, usage, _ = _streamed_reply(client, state["messages"])
        state["tokensUsed"] = usage["input_tokens"] + usage["output_tokens"]
        state["messages"].append(message)
        calls = [block for block in message["content"] if block["type"] == "tool_use"]
        state["pendingToolUse"] = ({"id": calls[0]["id"], "name": calls[0]["name"], "input": calls[0]["input"]}
                                   if calls else None)
        save_checkpoint(state, path)  # 存档点 A
        if not calls:
            break
        output = execute_with_ledger(state["pendingToolUse"], ledger)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": calls[0]["id"], "content": output}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
