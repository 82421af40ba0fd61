"""错误：execute_with_ledger 的 intent 经 append_ledger 落盘，outcome 却觉得「反正工具已经做完了」，用 "a" 模式随手写一行
（不 fsync）：返回之后断电，outcome 可能不在，续跑时只能去问服务端（不认键的工具只能补 is_error）。课文：每一条都持久地落盘。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    with open(ledger, "a", encoding="utf-8") as f:
        f.write(json.dumps({"type": "outcome", "toolUseId": call["id"], "output": output}, ensure_ascii=False) + "\n")
    return output
