"""错误：execute_with_ledger「保证 outcome 总会写下」：output 先设成「错误：没有完成」，execute_tool 放在 try 里，outcome 在
finally 里追加。执行途中被 KeyboardInterrupt（notebook 里点了中断）打断时，信可能已经交给服务器，台账却记下一个确定的
「错误」结果，恢复时复用它、不再问服务端，模型以为没发出去再发一封（新的 tool_use id、新的键）。课文：outcome 记的是
工具返回的文本；没返回就只有 intent，留给恢复时按键去问。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = f"错误：{name} 没有完成"
    try:
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
    finally:
        append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
