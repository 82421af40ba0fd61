"""满分（另一种写法）：调用模型用流式接口 client.messages.stream(...)，边收边把文字打印出来，收完用 get_final_message()
拿到和 create 一样的 Message；存档点、续跑、对账都和课文一样。"""
# %% run_agent
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
        with client.messages.stream(messages=state["messages"], **request_params()) as stream:
            for piece in stream.text_stream:
                print(piece, end="", flush=True)
            reply = stream.get_final_message()
        print()
        state["tokensUsed"] = reply.usage.input_tokens + reply.usage.output_tokens
        state["messages"].append(assistant_message(reply))
        wanted = [block for block in reply.content if block.type == "tool_use"]
        state["pendingToolUse"] = ({"id": wanted[0].id, "name": wanted[0].name, "input": wanted[0].input}
                                   if wanted else None)
        save_checkpoint(state, path)  # 存档点 A
        if not wanted:
            break
        output = execute_tool(wanted[0].name, wanted[0].input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": wanted[0].id, "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    return state
