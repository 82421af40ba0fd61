"""错误：execute_with_ledger 先执行工具，执行完再一起记 intent 和 outcome——崩溃落在执行途中时，台账里什么都没有。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
