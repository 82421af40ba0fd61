"""错误（「防重复」放进了 execute_with_ledger）：在进程里记住执行过的 (name, input)，同名同参数的调用第二次来时直接返回上次的
结果、不执行也不记台账。可参数相同的两次调用是两次不同的调用（id 不同）：模型要再扣一笔同样金额的款、再发一封同样的提醒，
都被悄悄吞掉，还告诉模型「做了」。重复与否只看幂等键（调用的 id）。"""
# %% execute_with_ledger
_done_in_this_process = {}


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    seen = (name, json.dumps(tool_input, sort_keys=True, ensure_ascii=False))
    if seen in _done_in_this_process:
        return _done_in_this_process[seen]
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    _done_in_this_process[seen] = output
    return output
