"""错误（变异测试）：execute_with_ledger 把 intent 追加了两次（台账里这次调用是 intent、intent、outcome；每个调用只记
一条 intent、一条 outcome）。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
