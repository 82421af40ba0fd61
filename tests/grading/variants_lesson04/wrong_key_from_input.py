"""错误：幂等键由工具名和参数算出（SHA-256）——两次本来都该发的、参数相同的信被当成了一封。"""
# %% execute_with_ledger
import hashlib


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    key = hashlib.sha256(json.dumps([name, tool_input], sort_keys=True).encode()).hexdigest()
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=key)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
