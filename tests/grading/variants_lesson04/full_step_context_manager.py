"""满分（另一种写法）：execute_with_ledger 用 contextlib.contextmanager 写一个「台账步骤」：进入时追加 intent，
with 块里带键执行，正常离开时追加 outcome（with 块里抛了异常就不记 outcome：结果不知道）；只读工具不进这个步骤。"""
# %% execute_with_ledger
from contextlib import contextmanager


class _Step:
    output = None


@contextmanager
def ledger_step(ledger, call):
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"], "input": call["input"]})
    step = _Step()
    yield step
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": step.output})


def execute_with_ledger(call, ledger):
    if call["name"] in READ_ONLY_TOOLS:
        return execute_tool(call["name"], call["input"])
    with ledger_step(ledger, call) as step:
        step.output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
    return step.output
