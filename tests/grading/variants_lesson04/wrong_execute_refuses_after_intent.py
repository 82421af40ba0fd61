"""错误（「防重复」过了头）：execute_with_ledger 先翻台账：这次调用（按 id）已有 outcome 就直接返回它（对）；已有 intent、
没有 outcome 时就不再执行，返回一句「之前已经开始过，为免重复没有再执行」，台账也不动（「有意图就可能已经发过了」）。
可 reconcile 只在服务端按键查过、说没收到时才让它再执行（课文第 5 节：没查到就用同一把键执行一次）：这封信一次也没发，
模型拿到的也不是执行的结果。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    mine = [r for r in read_ledger(ledger) if r.get("toolUseId") == call["id"]]
    for record in mine:
        if record.get("type") == "outcome":
            return record["output"]
    if any(record.get("type") == "intent" for record in mine):
        return f"{name} 之前已经开始执行过（{call['id']}），为免重复，这次没有再执行。"
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
