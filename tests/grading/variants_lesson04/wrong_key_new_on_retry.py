"""错误：execute_with_ledger 第一次执行用 call["id"] 作键；台账里已经有这次调用的 intent（是重试）时，换一把
f"{id}-retry{n}" 的新键（「同一把键服务器会回答 already delivered，不会真的发」）——服务器说没收到、其实信还在路上时，
换了键就会多发一封。课文第 5 节：「没查到就执行」之所以安全，是因为执行带着同一把键。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    tries = sum(1 for r in read_ledger(ledger) if r.get("toolUseId") == call["id"] and r.get("type") == "intent")
    key = call["id"] if tries == 0 else f"{call['id']}-retry{tries}"
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=key)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
