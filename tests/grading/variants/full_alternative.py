"""满分：写法和参考答案都不同——NamedTemporaryFile、自定义异常子类、换了说法的中文信息、手写 assistant 消息、
for 循环数轮次、frozenset、复制而不修改检查点、字典分派、答案写成小写加空格；重新执行的输出是空字符串时写一句「（没有输出）」（API 不收空的文本块）。"""
# %% save_load
class CheckpointError(ValueError):
    """A checkpoint file that cannot be used."""


def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False, suffix=".part") as handle:
        try:
            handle.write(json.dumps(state))
            handle.flush()
            os.fsync(handle.fileno())
        except BaseException:
            handle.close()
            os.unlink(handle.name)
            raise
    os.replace(handle.name, target)
    descriptor = os.open(folder, os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def load_checkpoint(path=CHECKPOINT_PATH):
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"无法读取检查点文件 {path}，它可能已损坏：{error}") from None
    found = data.get("version") if isinstance(data, dict) else "（内容不是一个 JSON 对象）"
    if found != CHECKPOINT_VERSION:
        raise CheckpointError(f"检查点文件 {path} 的格式版本是 {found}，而这段代码读的是版本 {CHECKPOINT_VERSION}")
    return data
# %% run_agent
def _new_state(task):
    return {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
            "messages": [{"role": "user", "content": task}], "pendingToolUse": None}


def _as_dict(block):
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    return {"type": "text", "text": block.text}


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    state = load_checkpoint(path) or _new_state(task)
    if state["pendingToolUse"]:
        state = reconcile(state)
        save_checkpoint(state, path)
    if state["messages"][-1]["role"] == "assistant":
        return state
    for _ in range(MAX_TURNS - state["turns"]):
        reply = client.messages.create(messages=state["messages"], **request_params())
        state["turns"] += 1
        state["tokensUsed"] = reply.usage.input_tokens + reply.usage.output_tokens
        blocks = [_as_dict(b) for b in reply.content]
        state["messages"].append({"role": "assistant", "content": blocks})
        calls = [b for b in blocks if b["type"] == "tool_use"]
        state["pendingToolUse"] = {k: calls[0][k] for k in ("id", "name", "input")} if calls else None
        save_checkpoint(state, path)
        if not calls:
            return state
        result = execute_tool(calls[0]["name"], calls[0]["input"])
        failed = {"is_error": True} if result.startswith("错误") else {}
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": calls[0]["id"], "content": result, **failed}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
# %% quiz_delete
QUIZ_DELETE_ANSWER = "${lower:QUIZ_DELETE_ANSWER}"
# %% reconcile
import copy

READ_ONLY_TOOLS = frozenset({"read_file", "grep", "list_dir", "web_search", "list_sent_emails"})


def reconcile(cp):
    fixed = copy.deepcopy(cp)
    call = fixed.pop("pendingToolUse")
    if call["name"] in READ_ONLY_TOOLS:
        text = execute_tool(call["name"], call["input"])
        block = {"type": "tool_result", "tool_use_id": call["id"],
                 "content": [{"type": "text", "text": text or "（没有输出）"}],
                 **({"is_error": True} if text.startswith("错误") else {})}
    else:
        block = {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                 "content": f"Outcome of {call['name']} is unknown: the process died before recording it. "
                            "Check the current state before trying again."}
    fixed["messages"].append({"role": "user", "content": [block]})
    fixed["pendingToolUse"] = None
    return fixed
# %% recovery_action
def recovery_action(cp):
    pending = cp.get("pendingToolUse")
    if not pending:
        return "continue"
    return {True: "rerun", False: "is_error"}[pending["name"] in READ_ONLY_TOOLS]
