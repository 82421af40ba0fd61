"""满分（另一种写法）：execute_with_ledger 执行任何工具都带上幂等键 call["id"]（课文：只读工具忽略这个参数），
只读工具只是不记台账。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input, key = call["name"], call["input"], call["id"]
    ledgered = name not in READ_ONLY_TOOLS
    if ledgered:
        append_ledger(ledger, {"type": "intent", "toolUseId": key, "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=key)
    if ledgered:
        append_ledger(ledger, {"type": "outcome", "toolUseId": key, "output": output})
    return output
