"""满分（少见的写法）：学生在 READ_ONLY_TOOLS 后面自己加了一个单元格，用 for 循环把白名单填进一张「工具 → 动作」的表
ACTIONS（不在表里的一律 is_error）；recovery_action 查这张表，reconcile 用 recovery_action 判断。在学生的 notebook 里完全正常。"""
# %% extra after read_only_tools
ACTIONS = {}
for _tool in READ_ONLY_TOOLS:
    ACTIONS[_tool] = "rerun"
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return ACTIONS.get(pending["name"], "is_error")
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if recovery_action(cp) == "rerun":
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：它可能已经生效，也可能没有。请先确认现状再决定。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
