"""错：悬空的只读调用重新执行失败了，就再执行一次「碰碰运气」：只读工具被执行了两次，
第二次的输出才当作结果（失败的结果本身就是答案，应该交给模型）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        if output.startswith("错误"):
            output = execute_tool(pending["name"], pending["input"])  # 再试一次
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了。请先确认现状。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
