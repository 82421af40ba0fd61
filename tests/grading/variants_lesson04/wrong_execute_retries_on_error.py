"""错误（把「至少一次」理解成「失败就重试」）：execute_with_ledger 带着同一把键执行；输出以「错误」开头时，等一会儿再执行，
最多三次（「引擎保证每一步至少完成一次，带着同一把键重试是安全的」），outcome 记最后一次的输出。可幂等键只保护认键的服务：
append_line、charge_card 和不认识的工具会被做好几遍；课文：工具出错也是确定的结果，照样记进 outcome，要不要重试由模型决定。"""
# %% execute_with_ledger
import time


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    for attempt in range(3):
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
        if not output.startswith("错误"):
            break
        time.sleep(0.05 * (attempt + 1))
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
