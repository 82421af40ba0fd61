"""错：reconcile 把重新执行得到的输出截到前 1500 个字符：tool_result 的 content 要是 execute_tool 返回的整段文本。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output[:1500],
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
