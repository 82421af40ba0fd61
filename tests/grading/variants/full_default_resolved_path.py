"""满分（应当）：三个函数的默认路径在定义时就变成绝对路径（DEFAULT_PATH = CHECKPOINT_PATH.resolve()），
「免得以后 os.chdir 了写到别处」。在 notebook 里 kernel 的当前文件夹从不改变，它和 CHECKPOINT_PATH 指的是同一个文件；
其余和参考答案一样（保存用 os.path 的写法）。"""
# %% save_load
DEFAULT_PATH = CHECKPOINT_PATH.resolve()


def save_checkpoint(state, path=DEFAULT_PATH):
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp_path = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)
        raise
    if os.name != "nt":
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def load_checkpoint(path=DEFAULT_PATH):
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    if not isinstance(state, dict):
        raise ValueError(f"检查点 {path} 不是一个 JSON 对象")
    if state.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state.get('version')}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
# %% run_agent
def run_agent(task, client=None, path=DEFAULT_PATH):
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
