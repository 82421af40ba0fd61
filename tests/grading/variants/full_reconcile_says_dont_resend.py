"""满分：结果未知的 content 写「结果未知，它可能已经生效，不该直接重新执行，请确认现状后再决定下一步」（没有写「先」字）。
「不该直接重新执行」是叫模型别重做；课程的离线模型和评分器原先只认「不要」「不能」这类说法，把「不该」「无须」「没必要」
「禁止」后面的「重新执行」当成了让模型直接重做的指令。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知（进程在记下结果之前崩溃了），它可能已经生效，"
                             "不该直接重新执行，请确认现状后再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
