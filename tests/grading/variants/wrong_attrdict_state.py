"""错（JavaScript 的写法）：load_checkpoint 返回 AttrDict（dict 的子类，cp.turns 和 cp["turns"] 都能读写），
run_agent、reconcile、recovery_action 都用点号读写字段。它自己的几个函数配在一起能跑，可 run_agent 离不开这个 load：
课文说检查点里的一切都是普通的字典和列表、用 ["type"] 这样的键来读，换上课文的 load_checkpoint（评分时 run_agent 配的
就是评分器照课文写的那个）就抛 AttributeError。反馈要说清楚那一步的 load_checkpoint 返回的是普通的 dict。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


class AttrDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本，文件可能已损坏：{exc}") from exc
    try:
        state = json.loads(text, object_hook=AttrDict)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    cp = load_checkpoint(path)
    if cp is None:
        cp = AttrDict(version=CHECKPOINT_VERSION, task=task, turns=0, tokensUsed=0,
                      messages=[AttrDict(role="user", content=task)], pendingToolUse=None)
    elif cp.pendingToolUse is not None:
        cp = AttrDict(reconcile(cp))
        save_checkpoint(cp, path)
    elif cp.messages[-1]["role"] == "assistant":
        return cp
    while cp.turns < MAX_TURNS:
        cp.turns += 1
        response = client.messages.create(messages=cp.messages, **request_params())
        cp.tokensUsed = response.usage.input_tokens + response.usage.output_tokens
        cp.messages.append(assistant_message(response))
        call = next((b for b in response.content if b.type == "tool_use"), None)
        cp.pendingToolUse = AttrDict(id=call.id, name=call.name, input=call.input) if call else None
        save_checkpoint(cp, path)
        if call is None:
            break
        output = execute_tool(call.name, call.input)
        cp.messages.append(AttrDict(role="user", content=[AttrDict(type="tool_result", tool_use_id=call.id,
                                                                   content=output, is_error=output.startswith("错误"))]))
        cp.pendingToolUse = None
        save_checkpoint(cp, path)
    return cp
# %% recovery_action
def recovery_action(cp):
    cp = AttrDict(cp)
    if cp.pendingToolUse is None:
        return "continue"
    return "rerun" if cp.pendingToolUse["name"] in READ_ONLY_TOOLS else "is_error"
# %% reconcile
def reconcile(cp):
    cp = AttrDict(cp)
    call = AttrDict(cp.pendingToolUse)
    if call.name in READ_ONLY_TOOLS:
        output = execute_tool(call.name, call.input)
        result = AttrDict(type="tool_result", tool_use_id=call.id, content=output, is_error=output.startswith("错误"))
    else:
        result = AttrDict(type="tool_result", tool_use_id=call.id, is_error=True,
                          content=f"{call.name} 的执行结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。"
                                  "请先确认现状，再决定下一步。")
    cp.messages.append(AttrDict(role="user", content=[result]))
    cp.pendingToolUse = None
    return cp
