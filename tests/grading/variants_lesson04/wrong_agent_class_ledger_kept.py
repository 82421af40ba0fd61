"""错误：run_agent 交给模块里建一次的 _Agent 对象；它第一次运行时算出台账路径 ledger_path(path) 存在 self.ledger，
以后每次运行（不同的 path）都沿用这一本：同一个进程（notebook 的内核）里换一个检查点再运行，intent 和 outcome
记进了上一个任务的台账，这个检查点旁边的台账里没有它们，崩溃后续跑就把做过的不认键调用再做一次。"""
# %% run_agent
class _Agent:
    def __init__(self):
        self.ledger = None

    def run(self, task, client, path):
        if self.ledger is None:
            self.ledger = ledger_path(path)
        state = load_checkpoint(path)
        if state is None:
            state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                     "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
        elif state["pendingToolUse"] is not None:
            state = reconcile(state, self.ledger)
            save_checkpoint(state, path)
        while state["turns"] < MAX_TURNS:
            state["turns"] += 1
            response = client.messages.create(messages=state["messages"], **request_params())
            state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
            state["messages"].append(assistant_message(response))
            tool_use = next((block for block in response.content if block.type == "tool_use"), None)
            state["pendingToolUse"] = (
                {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
            save_checkpoint(state, path)  # 存档点 A
            if tool_use is None:
                break
            output = execute_with_ledger(state["pendingToolUse"], self.ledger)
            state["messages"].append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": output}]})
            state["pendingToolUse"] = None
            save_checkpoint(state, path)  # 存档点 B
        return state


_AGENT = _Agent()


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    return _AGENT.run(task, client or make_client(), path)
