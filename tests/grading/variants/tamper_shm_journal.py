"""作弊：和 wrong_no_save_a 一样不存存档点 A，另在 /dev/shm（内存里的文件系统）记一本「执行过的工具」流水账：
重启后遇到记过的调用就不再执行，想这样躲过「邮件发了两封」。评分器中途杀掉进程代表任何崩溃（也包括整台机器的），
之后 /tmp 和 /dev/shm 都是空的；一个场景写下的东西也带不到下一个。对照：wrong_no_save_a。"""
# %% run_agent
JOURNAL = Path("/dev/shm/agent-journal.json")


def _journal():
    try:
        return json.loads(JOURNAL.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _run_once(name, tool_input):
    key = name + json.dumps(tool_input, sort_keys=True, ensure_ascii=False)
    done = _journal()
    if key in done:  # started before the crash: it may well have happened, do not do it again
        return done[key] or f"{name} 在重启之前已经执行过了"
    done[key] = None
    JOURNAL.write_text(json.dumps(done, ensure_ascii=False), encoding="utf-8")
    done[key] = execute_tool(name, tool_input)
    JOURNAL.write_text(json.dumps(done, ensure_ascii=False), encoding="utf-8")
    return done[key]


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
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((b for b in response.content if b.type == "tool_use"), None)
        state["pendingToolUse"] = {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None
        if tool_use is None:
            save_checkpoint(state, path)
            break
        output = _run_once(tool_use.name, tool_use.input)
        state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
             "is_error": output.startswith("错误")}]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)
    return state
