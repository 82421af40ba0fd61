"""满分（另一种写法）：execute_with_ledger 把工具放进一个单线程的 ThreadPoolExecutor 里执行、最多等 120 秒（防止某个工具
卡住整个 agent），with 结束时线程池关闭；intent 在提交之前落盘，outcome 在拿到结果之后落盘。"""
# %% execute_with_ledger
from concurrent.futures import ThreadPoolExecutor


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    with ThreadPoolExecutor(max_workers=1) as pool:
        output = pool.submit(lambda: execute_tool(name, tool_input, idempotency_key=call["id"])).result(timeout=120)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
