"""错误：execute_with_ledger 只在工具有输出时才追加 outcome（if output:）：输出是空字符串的调用台账里只有 intent，
之后在存档点 B 之前崩溃，恢复时它成了「结果未知」（服务端答不上来就 is_error）。notebook：output 就是上一步返回的文本，照样记。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    if output:
        append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
