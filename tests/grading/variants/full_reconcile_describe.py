"""满分：reconcile 先用 notebook 演示单元格里定义的 describe() 把悬空调用打印出来（多打一行日志），
再按只读与否补上 tool_result。describe() 不在答题单元格里，但在学生的 notebook 里能用，评分器也要能用。"""
# %% reconcile
def reconcile(cp):
    call = cp["pendingToolUse"]
    print("对账前的最后一条消息：", describe(cp["messages"][-1]))
    if call["name"] in READ_ONLY_TOOLS:
        output = execute_tool(call["name"], call["input"])
        block = {"type": "tool_result", "tool_use_id": call["id"], "content": output, "is_error": output[:2] == "错误"}
    else:
        block = {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                 "content": f"不知道 {call['name']} 有没有生效（崩溃发生在记下结果之前），没有再执行它，请先核实。"}
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
