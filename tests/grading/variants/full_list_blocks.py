"""满分：tool_result 的 content 写成文本块列表（run_agent 和 reconcile 都是；工具的输出是空字符串时直接用字符串，API 不收空的文本块），reconcile 深拷贝后返回新检查点，
run_agent 用 for 循环数剩下的轮次，usage 用 getattr 读。"""
# %% run_agent
def _text_result(tool_id, text, **flags):
    content = [{"type": "text", "text": text}] if text else text  # the API refuses an empty text block
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **flags}


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    if state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    if state["messages"][-1]["role"] == "assistant":  # 做完了
        return state
    for _ in range(max(0, MAX_TURNS - state["turns"])):
        response = client.messages.create(messages=state["messages"], **request_params())
        state["turns"] += 1
        usage = response.usage
        state["tokensUsed"] = getattr(usage, "input_tokens") + getattr(usage, "output_tokens")
        state["messages"].append(assistant_message(response))
        uses = [block for block in response.content if block.type == "tool_use"]
        state["pendingToolUse"] = {"id": uses[0].id, "name": uses[0].name, "input": uses[0].input} if uses else None
        save_checkpoint(state, path)
        if not uses:
            break
        text = execute_tool(uses[0].name, uses[0].input)
        flags = {"is_error": True} if text.startswith("错误") else {}
        state["messages"].append({"role": "user", "content": [_text_result(uses[0].id, text, **flags)]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
# %% reconcile
import copy

READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    cp = copy.deepcopy(cp)
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        text = execute_tool(pending["name"], pending["input"])
        result = _text_result(pending["id"], text, **({"is_error": True} if text.startswith("错误") else {}))
    else:
        result = _text_result(pending["id"], f"不知道 {pending['name']} 有没有执行成功：进程在记下结果之前就崩溃了。"
                                             "请先查清现状，再决定要不要重做。", is_error=True)
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
