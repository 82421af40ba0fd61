"""错：reconcile 重新执行只读工具后，输出里只要出现「错误」就标 is_error：成功读到的文件内容里提到错误，并不是失败。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": "错误" in output}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
