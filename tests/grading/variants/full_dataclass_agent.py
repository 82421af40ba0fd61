"""满分：run_agent 的状态是一个 dataclass（AgentState），存档时 asdict 成六个字段的 dict，读回来用 AgentState(**d)；
返回的也是 asdict 的 dict。工具调用用一个小函数 find_tool_use 找，一个 for-else 数轮次。"""
# %% run_agent
from dataclasses import asdict, dataclass, field


@dataclass
class AgentState:
    version: int
    task: object
    turns: int = 0
    tokensUsed: int = 0
    messages: list = field(default_factory=list)
    pendingToolUse: object = None

    def save(self, path):
        save_checkpoint(asdict(self), path)


def find_tool_use(content):
    for block in content:
        if block.type == "tool_use":
            return block
    return None


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    if client is None:
        client = make_client()
    loaded = load_checkpoint(path)
    if loaded is None:
        state = AgentState(CHECKPOINT_VERSION, task, messages=[{"role": "user", "content": task}])
    else:
        state = AgentState(**loaded)
        if state.pendingToolUse is not None:
            state = AgentState(**reconcile(asdict(state)))
            state.save(path)
        elif state.messages[-1]["role"] == "assistant":
            return asdict(state)
    while state.turns < MAX_TURNS:
        state.turns += 1
        response = client.messages.create(messages=state.messages, **request_params())
        state.tokensUsed = response.usage.input_tokens + response.usage.output_tokens
        state.messages.append(assistant_message(response))
        call = find_tool_use(response.content)
        state.pendingToolUse = None if call is None else {"id": call.id, "name": call.name, "input": call.input}
        state.save(path)  # 存档点 A
        if call is None:
            break
        output = execute_tool(call.name, call.input)
        block = {"type": "tool_result", "tool_use_id": call.id, "content": output}
        if output.startswith("错误"):
            block["is_error"] = True
        state.messages.append({"role": "user", "content": [block]})
        state.pendingToolUse = None
        state.save(path)  # 存档点 B
    return asdict(state)
