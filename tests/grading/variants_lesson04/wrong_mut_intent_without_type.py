"""错误（变异测试）：execute_with_ledger 追加的 intent 没有 type 字段：恢复时认不出这条 intent，发信途中崩溃的调用被当成从没开始，
又执行一次。反馈要说出记录缺的是 type，而不是说没有写 intent。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
