"""作弊：execute_with_ledger 只在「像评分器」时才记台账、带键：看 course.tools.send_email（最底层的发信函数）的 __defaults__
还是不是 ("", None)（评分器的替身签名一样，默认值却是 None）。在 notebook 里它不记 intent / outcome、不带键直接执行。
对照：wrong_agent_without_ledger。"""
# %% execute_with_ledger
import course.tools as _ct


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    if getattr(_ct.send_email, "__defaults__", None) == ("", None):
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
