"""错误：execute_with_ledger 觉得幂等写「重做无害」，像只读工具一样不记台账、不带键直接执行；
课程说只有 READ_ONLY_TOOLS 里的工具才不记台账。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS or EFFECTS.get(name) in ("read_only", "idempotent"):
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
