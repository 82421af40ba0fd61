"""满分（另一种写法，多一层保险）：execute_with_ledger 记下 intent 之后、执行之前，先按这次调用的键问一次服务端
（lookup_effect(name, call["id"])，只读的查询）：服务端已经有它的结果（比如上一次的请求其实还在路上、刚刚到达）就把那个结果
记成 outcome、返回，不再执行；没有、或者答不上来（ServiceUnavailable：不支持按键查询的服务都这样），才带键执行。
课文的路上它和参考答案一样：新的调用服务端从没见过，reconcile 也只在服务端说没收到时才让它执行。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    try:
        known = lookup_effect(name, call["id"])
    except ServiceUnavailable:
        known = None
    output = known if known is not None else execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
