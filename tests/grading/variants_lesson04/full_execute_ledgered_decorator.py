"""满分（另一种写法）：execute_with_ledger 由一个装饰器 ledgered 造出来：被装饰的函数只管带键执行
（execute_tool(name, input, idempotency_key=call["id"])），装饰器包上「只读直接执行；其余先记 intent、执行、再记 outcome」，
functools.wraps 留下原函数的名字和文档（inspect.signature 因此显示 (call)，实际调用的是 (call, ledger)）。"""
# %% execute_with_ledger
import functools


def ledgered(run):
    """把「带键执行一次」包进台账：只读工具直接执行，其余先追加 intent，执行，再追加 outcome。"""
    @functools.wraps(run)
    def with_ledger(call, ledger):
        if call["name"] in READ_ONLY_TOOLS:
            return execute_tool(call["name"], call["input"])
        append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"], "input": call["input"]})
        output = run(call)
        append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
        return output
    return with_ledger


@ledgered
def execute_with_ledger(call):
    """执行一次工具调用 call = {"id", "name", "input"}，返回输出文本（台账由 ledgered 负责）。"""
    return execute_tool(call["name"], call["input"], idempotency_key=call["id"])
