"""错：工具名按不分大小写比较（name.lower() in READ_ONLY_TOOLS）：Read_File、GREP 这类不在白名单上的名字被当成只读重新执行
（课程：名字在 READ_ONLY_TOOLS 里才重做，其余——包括课程没提过的工具——一律不执行）。"""
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if pending["name"].lower() in READ_ONLY_TOOLS else "is_error"
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"].lower() in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知，请先确认现状。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
