"""错误（半懂幂等键）：execute_with_ledger 只在「重试」时带幂等键——台账里已经有这次调用的 intent 时才传
idempotency_key=call["id"]，第一次执行不带（「键是让服务端认出重试的，第一次哪来的重试」）。可第一次发出的信没有这把键，
服务端按它查不到、也认不出：崩溃在发信之后、outcome 之前，恢复时按 id 问服务端得到「没收到」，带键再发，信就发了两封。
课文：执行就带上这次调用自己的键。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    retry = any(r.get("toolUseId") == call["id"] and r.get("type") == "intent" for r in read_ledger(ledger))
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    if retry:
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
    else:
        output = execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
