"""错：对账后用 cp.pop("pendingToolUse") 把字段整个拿掉，而不是设成 None：检查点少了一个字段，不再是第 3 课定的格式
（别的程序、下一次 load 都按六个字段读它）。"""
# %% reconcile
def reconcile(cp):
    call = cp.pop("pendingToolUse")
    if call["name"] in READ_ONLY_TOOLS:
        text = execute_tool(call["name"], call["input"])
        block = {"type": "tool_result", "tool_use_id": call["id"], "content": text, "is_error": text.startswith("错误")}
    else:
        block = {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                 "content": f"不确定 {call['name']} 是否已经执行：记录结果之前进程就中断了。它可能已经生效，请先核实，再决定怎么做。"}
    cp["messages"].append({"role": "user", "content": [block]})
    return cp
