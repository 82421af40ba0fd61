"""满分：run_agent 用 logging 把每一轮记到当前文件夹的 agent.log（定义单元格时就打开这个文件），其余和参考答案一样。
日志文件不是检查点，也不是保存时留下的临时文件。"""
# %% run_agent
import logging

logging.basicConfig(filename="agent.log", level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("agent")


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    log.info("开始：%s", task if isinstance(task, str) else "（文字块）")
    if client is None:
        client = make_client()
    state = load_checkpoint(path)
    if state is None:
        state = dict(version=CHECKPOINT_VERSION, task=task, turns=0, tokensUsed=0,
                     messages=[{"role": "user", "content": task}], pendingToolUse=None)
    elif state["pendingToolUse"]:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state
    for _ in range(state["turns"], MAX_TURNS):
        state["turns"] += 1
        reply = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = reply.usage.input_tokens + reply.usage.output_tokens
        state["messages"].append(assistant_message(reply))
        calls = [b for b in reply.content if b.type == "tool_use"]
        state["pendingToolUse"] = {"id": calls[0].id, "name": calls[0].name, "input": calls[0].input} if calls else None
        save_checkpoint(state, path)
        log.info("第 %d 轮，已存保存点 A", state["turns"])
        if not calls:
            return state
        text = execute_tool(calls[0].name, calls[0].input)
        block = {"type": "tool_result", "tool_use_id": calls[0].id, "content": text}
        if text.startswith("错误"):
            block["is_error"] = True
        state["messages"].append({"role": "user", "content": [block]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
