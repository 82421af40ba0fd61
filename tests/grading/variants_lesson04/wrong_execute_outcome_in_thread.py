"""错误：execute_with_ledger 先同步地记 intent、带键执行，outcome 却交给一个后台线程，攒 0.2 秒再追加（「fsync 慢，别让
agent 等它」），不等它就返回输出。返回时 outcome 还没落盘，run_agent 接着写存档点 B：两者之间崩溃，台账里只有 intent、检查点里
却已经有结果（存档点 B 之后不再对账），之后每条记录都接在那半行后面。"""
# %% execute_with_ledger
import threading
import time


def _append_later(ledger, record):
    time.sleep(0.2)  # 攒一攒，和别的记录一起写
    append_ledger(ledger, record)


def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input})
    output = execute_tool(name, tool_input, idempotency_key=call["id"])
    record = {"type": "outcome", "toolUseId": call["id"], "output": output}
    threading.Thread(target=_append_later, args=(ledger, record), daemon=True).start()
    return output
