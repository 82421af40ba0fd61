"""错误：幂等键是进程里的一个计数器：key = f"{name}-{n}"，n 从 1 数起（「每次调用一个新编号，重试时……」）。
同一个进程里两次调用的键不同，可每个进程都从 1 数起：重启之后的第一次发信和崩溃前那个进程的第一次发信是同一把键，
服务器回答「already delivered」，这封本该发出的信一封也没发；对账按 id 问服务器，也认不出它。键要用 tool_use id。"""
# %% execute_with_ledger
import itertools

_numbers = itertools.count(1)


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    key = f"{name}-{next(_numbers)}"
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=key)
    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
    return output
