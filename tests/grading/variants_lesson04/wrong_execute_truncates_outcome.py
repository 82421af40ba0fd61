"""错误：execute_with_ledger 怕台账越写越大，outcome 里只记输出的前 2000 个字符（返回给调用者的还是完整的输出）。
课文：outcome 的 output「就是上一步返回的文本」；恢复时复用它作为 tool_result——输出很长的工具（部署日志、导出的报表）
续跑后模型拿到的是截断的结果（第 3 课：content 要带着整段输出，截短的丢分）。"""
# %% execute_with_ledger
OUTCOME_LIMIT = 2000


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output[:OUTCOME_LIMIT]})
    return output
