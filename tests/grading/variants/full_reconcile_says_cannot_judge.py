"""满分：结果未知的 content 写「是成功还是失败，现在无从判断（进程在记下结果之前崩溃了）。请核实后再继续。」——
「无从判断」说的就是结果未知。课程的离线模型和评分器原先只认「无法判断」「不得而知」这类说法，句子里又有「失败」二字，
就把它读成了「工具确实失败了」。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 是成功还是失败，现在无从判断（进程在记下结果之前崩溃了）。请核实后再继续。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
