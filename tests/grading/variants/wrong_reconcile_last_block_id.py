"""错：reconcile 不看 pendingToolUse，而是把最后一条 assistant 消息的最后一个内容块当成悬空调用，用它的 id。
模型在调用之后还可以再写一段文字，那时最后一块不是 tool_use，tool_result 就配错了调用。"""
# %% reconcile
def reconcile(cp):
    call = cp["pendingToolUse"]
    last = cp["messages"][-1]["content"][-1]
    if call["name"] in READ_ONLY_TOOLS:
        output = execute_tool(call["name"], call["input"])
        block = {"type": "tool_result", "tool_use_id": last.get("id"), "content": output, "is_error": output.startswith("错误")}
    else:
        block = {"type": "tool_result", "tool_use_id": last.get("id"), "is_error": True,
                 "content": f"{call['name']} 是否已经生效不得而知（崩溃发生在记下结果之前），没有重新执行，请先核实。"}
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
