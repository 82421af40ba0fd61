"""满分：结果未知的 content 写「结果未知：进程在记下结果之前崩溃了，它可能已经生效。是否重新执行由你决定，请确认现状后再决定。」
「是否重新执行」是把决定交给模型，不是叫它重做；课程的离线模型和评分器原先把其中的「重新执行」当成了指令
（「若要重试」「需要重发时」「重新执行与否」也一样）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 结果未知：进程在记下结果之前崩溃了，它可能已经生效。"
                             "是否重新执行由你决定，请确认现状后再决定。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
