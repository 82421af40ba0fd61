"""错误：outcome 记录把工具的输出存在 "result" 字段里，而不是课程约定的 "output"：恢复代码按 output 取，取到的是 None。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "result": output})
    return output
