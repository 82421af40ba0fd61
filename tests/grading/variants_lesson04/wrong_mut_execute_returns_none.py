"""错误（变异测试）：execute_with_ledger 记下 outcome 之后忘了 return output，有副作用的调用返回 None，
tool_result 的 content 是 None。反馈曾说 run_agent 抛出 APIConnectionError（离线模型读 content 时自己出错）。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
