"""满分：reconcile 在边界上把 pendingToolUse 转成一个 dataclass（PendingCall(**d)），结果块先做成 ToolResult dataclass，
追加进 messages 之前再 asdict 回普通的 dict（字段顺序和参考答案不同）。"""
# %% reconcile
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class PendingCall:
    id: str
    name: str
    input: dict


@dataclass
class ToolResult:
    tool_use_id: str
    content: str
    is_error: bool
    type: str = "tool_result"


def _result_for(call: PendingCall) -> ToolResult:
    if call.name in READ_ONLY_TOOLS:
        output = execute_tool(call.name, call.input)
        return ToolResult(call.id, output, output.startswith("错误"))
    return ToolResult(call.id, f"{call.name} 的结果未知：进程在记下结果之前崩溃了，这次调用可能已经生效，也可能没有。"
                               "请先确认现状，再决定下一步。", True)


def reconcile(cp):
    call = PendingCall(**cp["pendingToolUse"])
    cp["messages"].append({"role": "user", "content": [asdict(_result_for(call))]})
    cp["pendingToolUse"] = None
    return cp
