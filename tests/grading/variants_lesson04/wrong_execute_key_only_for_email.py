"""错误：execute_with_ledger 只给 send_email 带幂等键（「只有邮件服务器认键」），charge_card、append_line 这些有副作用的工具
不带键执行；台账照记。notebook：带上这次调用自己的键 execute_tool(name, input, idempotency_key=call["id"])。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    if name == "send_email":
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
    else:
        output = execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
