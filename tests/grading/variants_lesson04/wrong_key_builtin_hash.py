"""错误：幂等键写成 str(hash(call["id"]))（「id 太长，取个哈希当键」）。Python 的 str 哈希每个进程随机加盐
（PYTHONHASHSEED）：同一个进程里它对同一个 id 不变，进程重启后就变了——崩溃之后续跑带的是一把新键，
服务端认不出这是同一次调用；按 id 去问服务端也问不到（服务端记的是那把哈希键）。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    key = str(hash(call["id"]))
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=key)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
