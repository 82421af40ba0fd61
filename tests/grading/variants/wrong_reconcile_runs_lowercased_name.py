"""错：reconcile 先把工具名规整成小写、去掉空白，再查 READ_ONLY_TOOLS，并用规整后的名字重新执行：悬空的 Grep、READ_FILE
被当成 grep、read_file 执行了一次（课程：名字一字不差地在 READ_ONLY_TOOLS 里才重做，其余一律标 is_error）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    tool = pending["name"].strip().lower()
    if tool in READ_ONLY_TOOLS:
        text = execute_tool(tool, pending["input"])
        block = {"type": "tool_result", "tool_use_id": pending["id"], "content": text}
        if text.startswith("错误"):
            block["is_error"] = True
    else:
        block = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                 "content": f"{pending['name']} 的结果没有记下来，不知道它是否已经生效；请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
