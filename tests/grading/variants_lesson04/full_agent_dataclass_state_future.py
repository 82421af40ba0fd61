"""满分（另一种写法）：run_agent 的单元格以 from __future__ import annotations 开头，注解写 anthropic.Anthropic | None
（没有 import anthropic：注解不求值）；状态放在一个 dataclass 里，存档前 dataclasses.asdict；台账路径写成
Path(path).parent / LEDGER_NAME；tokensUsed 用 getattr 取；每轮 print 进度。"""
# %% run_agent
from __future__ import annotations

import dataclasses

from course.ledger import LEDGER_NAME


@dataclasses.dataclass
class AgentState:
    version: int
    task: str
    turns: int = 0
    tokensUsed: int = 0
    messages: list[dict] = dataclasses.field(default_factory=list)
    pendingToolUse: dict | None = None

    def save(self, path: str | Path) -> None:
        save_checkpoint(dataclasses.asdict(self), path)


def run_agent(task: str, client: anthropic.Anthropic | None = None, path: str | Path = CHECKPOINT_PATH) -> dict:
    client = client or make_client()
    ledger = Path(path).parent / LEDGER_NAME
    loaded = load_checkpoint(path)
    if loaded is None:
        st = AgentState(CHECKPOINT_VERSION, task, messages=[{"role": "user", "content": task}])
    elif loaded["pendingToolUse"] is not None:
        st = AgentState(**reconcile(loaded, ledger))
        st.save(path)
    else:
        st = AgentState(**loaded)

    while st.turns < MAX_TURNS:
        st.turns += 1
        response = client.messages.create(messages=st.messages, **request_params())
        usage = response.usage
        st.tokensUsed = getattr(usage, "input_tokens", 0) + getattr(usage, "output_tokens", 0)
        st.messages.append(assistant_message(response))
        tool_uses = [block for block in response.content if block.type == "tool_use"]
        st.pendingToolUse = ({"id": tool_uses[0].id, "name": tool_uses[0].name, "input": tool_uses[0].input}
                             if tool_uses else None)
        st.save(path)  # 存档点 A
        print(f"第 {st.turns} 轮：{'调用 ' + tool_uses[0].name if tool_uses else '结束'}")
        if not tool_uses:
            break
        output = execute_with_ledger(st.pendingToolUse, ledger)
        st.messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": st.pendingToolUse["id"], "content": output}]})
        st.pendingToolUse = None
        st.save(path)  # 存档点 B
    return dataclasses.asdict(st)
