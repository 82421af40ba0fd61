"""错误（变异测试）：execute_with_ledger 追加的 outcome 没有 type 字段（键写成了空字符串）：恢复时认不出这条 outcome，
已经做完的调用被当成只有 intent。评分器曾在比较台账记录、说出「你的是……」时自己出错（一条没有 type 的记录）。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"": "outcome", "toolUseId": call["id"], "output": output})
    return output
