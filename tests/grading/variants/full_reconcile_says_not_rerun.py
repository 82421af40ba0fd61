"""满分：结果未知的 content 先交代对账做了什么——「send_email 未重新执行」——再说结果未知、可能已经生效、请确认现状后
再决定（没有写「先」字）。「未重新执行」说的是没有做，不是叫模型重做；课程的离线模型和评分器原先把其中的「重新执行」
当成了让模型直接重做的指令。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 未重新执行：进程在记下结果之前崩溃了，结果未知，它可能已经生效。"
                             "请确认现状后再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
