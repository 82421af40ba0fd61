"""错误：把幂等键塞进工具参数里（call["input"]["idempotency_key"] = id），再 execute_tool(name, input)——服务端不认参数里的键
（课程的 execute_tool 只认 idempotency_key= 这个参数），发信等于没带键；而且就地改了 pendingToolUse 的 input。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    tool_input["idempotency_key"] = call["id"]
    output = execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
