"""错：对账补的结果放进了一条 role 为 "assistant" 的消息（以为「补上模型那一侧的结果」）：tool_result 只能出现在 user 消息里，
API 对这份对话回 400，而且悬空的 tool_use 仍然没有在下一条 user 消息里得到回答。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "assistant", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
