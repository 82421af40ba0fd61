"""错误：服务端回答「之前已经送达」时，execute_with_ledger 以为台账里早有这次调用的结果，不再追加 outcome
——可台账里只有刚写的 intent：下次恢复看到它，只能去问服务端，服务端答不上来时就成了结果未知。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    if "之前已经送达" in output:  # 服务端认出了幂等键：这封信早就记过了
        return output
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
