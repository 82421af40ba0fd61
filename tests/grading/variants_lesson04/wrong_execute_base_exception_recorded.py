"""错误：execute_with_ledger 用 except BaseException 把执行途中的一切（包括 KeyboardInterrupt、SystemExit）都记成以「错误」开头
的 outcome 并返回，不再抛出。在 notebook 里中断一次正在发的信：台账记下确定的「错误：KeyboardInterrupt」，run_agent 把它当
工具结果接着跑，模型以为没发出去，再发一封（新 id、新键）；恢复时也只会复用这个「错误」，从不按键去问服务端。课文：outcome
记工具返回的文本；工具没返回，结果就是未知的，只留 intent。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    try:
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
    except BaseException as exc:
        output = f"错误：{name} 被打断了（{type(exc).__name__}）"
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
