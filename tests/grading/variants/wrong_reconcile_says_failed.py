"""错：不能重新执行的调用标了 is_error，content 却写成工具自己失败的样子（「错误：……执行失败，没有生效」）：
模型读到「失败了」，就会以为信没发出去、再发一封。对账时谁也不知道它成没成，课程要求写明结果未知。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"错误：{pending['name']} 执行失败，这次调用没有生效。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
