"""错误：execute_with_ledger 只在工具成功时记 outcome；execute_tool 返回以「错误」开头的文本时不记（「没做成，下次恢复再试」）——
课文说出错也是确定的结果，照样记进 outcome。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    if not output.startswith("错误"):
        append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
