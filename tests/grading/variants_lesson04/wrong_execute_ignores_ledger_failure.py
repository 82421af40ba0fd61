"""错误：execute_with_ledger「记账失败不能耽误正事」：追加 intent 抛出 OSError（磁盘满、没有写权限、文件夹不见了）时
只打印一句警告，照样执行工具；outcome 也一样。课文：意图必须在工具执行之前真正落到磁盘上——intent 没写成就执行，
崩溃后台账里没有它，恢复代码以为从没开始，再做一次。应该让异常抛出去，不执行。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    try:
        append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    except OSError as exc:
        print("警告：台账写不进去，照常执行：", exc)
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    try:
        append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    except OSError as exc:
        print("警告：台账写不进去：", exc)
    return output
