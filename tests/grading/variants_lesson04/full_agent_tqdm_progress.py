"""满分（另一种写法）：run_agent 用 tqdm 的进度条显示用掉的轮次（with tqdm(total=MAX_TURNS, initial=turns) as bar，
每轮 bar.update(1)）。tqdm 开第一个进度条时启动一个监视线程、一直留着（notebook 里也是这样），它只刷新进度条。"""
# %% run_agent
from tqdm.auto import tqdm


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)

    with tqdm(total=MAX_TURNS, initial=state["turns"], desc="轮次") as bar:
        while state["turns"] < MAX_TURNS:
            state["turns"] += 1
            bar.update(1)
            response = client.messages.create(messages=state["messages"], **request_params())
            state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
            state["messages"].append(assistant_message(response))
            tool_use = next((block for block in response.content if block.type == "tool_use"), None)
            state["pendingToolUse"] = (
                {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
            save_checkpoint(state, path)  # 存档点 A
            if tool_use is None:
                break
            output = execute_with_ledger(state["pendingToolUse"], ledger)
            state["messages"].append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
            state["pendingToolUse"] = None
            save_checkpoint(state, path)  # 存档点 B
    return state
