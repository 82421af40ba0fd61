"""满分（另一种写法）：execute_with_ledger 把 execute_tool 包在 try/except 里，万一工具抛出异常，也把它写成一个以
「错误」开头的确定结果记进 outcome（课文：工具出错也是一个确定的结果）；key 用关键字参数传。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input, key = call["name"], call["input"], call["id"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": key, "name": name, "input": tool_input})
    try:
        output = execute_tool(name, tool_input, idempotency_key=key)
    except Exception as exc:  # 工具自己抛出的异常也是一个确定的结果
        output = f"错误：{name} 抛出了 {type(exc).__name__}：{exc}"
    append_ledger(ledger, {"type": "outcome", "toolUseId": key, "output": output})
    return output
