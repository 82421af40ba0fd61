"""错误：execute_with_ledger 觉得 intent 只是个「开始了」的记号，用 print 随手写进台账（不 flush、不 fsync），
只有 outcome 经 append_ledger 落盘：执行工具的那一刻断电，intent 可能不在磁盘上，续跑以为从没开始、再执行一次。
课文：意图记录必须在工具执行之前真正落到磁盘上。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    with open(ledger, "a", encoding="utf-8") as f:
        print(json.dumps({"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input},
                         ensure_ascii=False), file=f)
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
