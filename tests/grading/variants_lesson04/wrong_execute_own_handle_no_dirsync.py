"""错误：execute_with_ledger 不调用 append_ledger，自己用一个 "a" 句柄写 intent 和 outcome（整个执行期间开着，
每条 flush + os.fsync），却从不 fsync 文件夹——这次执行新建台账时（run_agent 从头开始的第一次有副作用的调用），
断电后台账这个名字可能不在，intent 跟着丢：续跑以为从没开始，再发一封。课文：「如果这次追加创建了台账文件，还要
fsync 它所在的文件夹」。"""
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    name, tool_input = call["name"], call["input"]
    if name in READ_ONLY_TOOLS:
        return execute_tool(name, tool_input)
    with open(ledger, "a", encoding="utf-8") as f:
        f.write(json.dumps({"type": "intent", "toolUseId": call["id"], "name": name, "input": tool_input},
                           ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())
        output = execute_tool(name, tool_input, idempotency_key=call["id"])
        f.write(json.dumps({"type": "outcome", "toolUseId": call["id"], "output": output}, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())
    return output
