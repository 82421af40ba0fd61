"""错误：幂等键每次现场生成一个 uuid4——重试时键变了，服务器认不出这是同一次调用。"""
# %% execute_with_ledger
import uuid


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=str(uuid.uuid4()))
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
