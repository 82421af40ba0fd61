"""满分：reconcile 用 recovery_action 判断，再查学生自己加的单元格里的一张表：动作 → 怎样得到结果块的字段
（"rerun" 那一项是一个调用 execute_tool 的 lambda，定义时并不执行它）。在学生的 notebook 里完全正常。"""
# %% extra after recovery_action
RESULT_FOR = {
    "rerun": lambda call: (lambda output: {"content": output, "is_error": output.startswith("错误")})(
        execute_tool(call["name"], call["input"])),
    "is_error": lambda call: {"is_error": True,
                              "content": f"{call['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效。请先确认现状再决定下一步。"},
}
# %% reconcile
def reconcile(cp):
    call = cp["pendingToolUse"]
    fields = RESULT_FOR[recovery_action(cp)](call)
    cp["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], **fields}]})
    cp["pendingToolUse"] = None
    return cp
