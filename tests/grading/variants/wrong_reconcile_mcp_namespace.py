"""错：把 mcp__server__read_file 这类带命名空间的工具名去掉前缀再查 READ_ONLY_TOOLS：一个课程没提过的工具被当成 read_file 再执行一次（notebook：不在集合里的一律不执行）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    short_name = pending["name"].split("__")[-1].split(".")[-1]
    if short_name in READ_ONLY_TOOLS:
        output = execute_tool(short_name, pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
