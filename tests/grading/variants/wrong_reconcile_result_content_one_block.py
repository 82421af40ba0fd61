"""错：tool_result 的 content 给的是一个文本块本身（{"type": "text", "text": ...}），既不是字符串，也不是块的列表：
API 对这样的对话回 400，续跑的第一次模型调用就失败。"""
# %% reconcile
def reconcile(cp):
    call = cp["pendingToolUse"]
    if call["name"] in READ_ONLY_TOOLS:
        text = execute_tool(call["name"], call["input"])
        flagged = text.startswith("错误")
    else:
        text = (f"不知道 {call['name']} 有没有执行成功：进程在记录结果之前就停了。"
                "它也许已经生效，先去确认现状，再决定要不要重做。")
        flagged = True
    block = {"type": "tool_result", "tool_use_id": call["id"], "content": {"type": "text", "text": text},
             "is_error": flagged}
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
