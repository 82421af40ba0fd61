"""错误：execute_with_ledger 拿台账的路径当幂等键（「一次运行一把键」）：同一个任务里的每个有副作用的调用键都一样，
服务端把第二封信当成第一封的重试，不再投递。课文：键要在不同的调用之间不同，用这次调用的 tool_use id。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=str(ledger))
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
