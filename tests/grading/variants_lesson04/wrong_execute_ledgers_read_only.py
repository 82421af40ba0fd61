"""execute_with_ledger 对只读工具也记 intent 和 outcome（「什么都记下来，方便审计」），只是不带幂等键。
笔记本说只读工具直接执行、不记台账：test_execute_with_ledger 丢 1 分；run_agent 从头跑时台账和参考答案不同，
反馈要说是只读工具不该记（不是 reconcile 的事：从头跑没有对账）。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    if name in READ_ONLY_TOOLS:
        output = execute_tool(name, tool_input)
    else:
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
