"""满分：辅助函数写在学生自己加的单元格里（那个单元格里的 print 和演示调用评分时不运行），
pathlib 写固定名字的临时文件（出错时删掉）、按路径 fsync、while True 循环、dict(...) 构造状态、就地修改检查点。"""
# %% extra after save_load
def _fsync(path, flags=os.O_RDONLY):
    descriptor = os.open(path, flags)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _tool_result(call, content, **extra):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": content, **extra}]}


SAFE_TOOLS = frozenset(["read_file", "grep", "list_dir", "web_search", "list_sent_emails"])
print("辅助函数准备好了")
demo = reconcile(load_sample("cpB"))
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "w", encoding="utf-8") as out:
            json.dump(state, out, ensure_ascii=False)
            out.flush()
            _fsync(part)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    part.replace(path)
    _fsync(path.parent)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():  # a folder at the path is no "no checkpoint": reading it raises
        return None
    try:
        state = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(f"无法解析检查点文件：{path.name}") from None
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"{path.name}：文件版本 {version}，代码版本 {CHECKPOINT_VERSION}，两者不符")
    return state
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    saved = load_checkpoint(path)
    if saved is None:
        state = dict(version=CHECKPOINT_VERSION, task=task, turns=0, tokensUsed=0,
                     messages=[dict(role="user", content=task)], pendingToolUse=None)
    else:
        if saved["pendingToolUse"] is None and saved["messages"][-1]["role"] == "assistant":
            return saved  # 上一次已经做完
        state = saved if saved["pendingToolUse"] is None else reconcile(saved)
        save_checkpoint(state, path)
    while True:
        if state["turns"] >= MAX_TURNS:
            return state
        state["turns"] = state["turns"] + 1
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        uses = [b for b in response.content if b.type == "tool_use"]
        state["pendingToolUse"] = {"id": uses[0].id, "name": uses[0].name, "input": uses[0].input} if uses else None
        save_checkpoint(state, path)
        if not uses:
            return state
        output = execute_tool(uses[0].name, uses[0].input)
        state["messages"].append(_tool_result(state["pendingToolUse"], output, is_error=output.startswith("错误")))
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
# %% reconcile
READ_ONLY_TOOLS = SAFE_TOOLS


def reconcile(cp):
    call = cp["pendingToolUse"]
    if call["name"] in READ_ONLY_TOOLS:
        output = execute_tool(call["name"], call["input"])
        message = _tool_result(call, output, is_error=output.startswith("错误"))
    else:
        message = _tool_result(call, "这次调用在崩溃前是否已经生效无法确定，请先核实现状再决定下一步。", is_error=True)
    cp["messages"].append(message)
    cp.update(pendingToolUse=None)
    return cp
# %% recovery_action
def recovery_action(cp):
    if cp["pendingToolUse"] is None:
        return "continue"
    return "rerun" if cp["pendingToolUse"]["name"] in SAFE_TOOLS else "is_error"
