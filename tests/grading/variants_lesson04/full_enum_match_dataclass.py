"""满分（另一种写法）：动作是一个 str 枚举（class Action(str, Enum)），recovery_action 返回枚举成员（它 == "reuse" 等字符串）；
台账记录先转成 dataclass，用 match 语句分派。"""
# %% recovery_action
from dataclasses import dataclass
from enum import Enum


class Action(str, Enum):
    CONTINUE = "continue"
    RERUN = "rerun"
    REUSE = "reuse"
    RECORD = "record"
    EXECUTE = "execute"
    IS_ERROR = "is_error"


@dataclass(frozen=True)
class Entry:
    kind: str
    call_id: str
    output: object = None

    @classmethod
    def of(cls, record):
        return cls(record.get("type"), record.get("toolUseId"), record.get("output"))


def recovery_action(cp, records, lookup):
    match cp["pendingToolUse"]:
        case None:
            return Action.CONTINUE
        case {"name": name} if name in READ_ONLY_TOOLS:
            return Action.RERUN
        case {"name": name, "id": call_id}:
            kinds = {e.kind for e in map(Entry.of, records) if e.call_id == call_id}
            if "outcome" in kinds:
                return Action.REUSE
            if "intent" not in kinds:
                return Action.EXECUTE
            try:
                answer = lookup(name, call_id)
            except ServiceUnavailable:
                return Action.IS_ERROR
            return Action.EXECUTE if answer is None else Action.RECORD
# %% reconcile
def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    entries = [Entry.of(r) for r in read_ledger(ledger)]
    block = {"type": "tool_result", "tool_use_id": pending["id"]}
    match recovery_action(cp, read_ledger(ledger), lookup_effect):
        case Action.RERUN:
            block["content"] = execute_tool(pending["name"], pending["input"])
        case Action.REUSE:
            block["content"] = [e for e in entries if e.call_id == pending["id"] and e.kind == "outcome"][-1].output
        case Action.RECORD:
            block["content"] = lookup_effect(pending["name"], pending["id"])
            append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": block["content"]})
        case Action.EXECUTE:
            block["content"] = execute_with_ledger(pending, ledger)
        case _:
            block.update(is_error=True, content=f"{pending['name']} 结果未知：只有意图，服务端答不上来，可能已经生效，请先确认。")
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
