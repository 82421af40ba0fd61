"""学生的简化：execute_with_ledger 的 intent 只记 type 和 toolUseId，不记 name 和 input（notebook 规定的格式里有）。
恢复时的判断只用到 type 和 toolUseId。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    if call["name"] in READ_ONLY_TOOLS:
        return execute_tool(call["name"], call["input"])
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"]})
    output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
