"""满分：READ_ONLY_TOOLS 写成一个 tuple（in 照样按名字逐个比较）；reconcile 不改传进来的检查点，而是用
{**cp, "messages": cp["messages"] + [补上的消息], "pendingToolUse": None} 造一份浅拷贝返回（新的 messages 列表，
原来的消息对象共用、一条也不改）；结果块的 content 是一个文本块的列表（输出为空时退回空字符串），is_error 写在最前面、
成功时写 False；recovery_action 用 cp.get。"""
# %% read_only_tools
READ_ONLY_TOOLS = ("read_file", "grep", "list_dir", "web_search", "list_sent_emails")
# %% recovery_action
def recovery_action(cp):
    pending = cp.get("pendingToolUse")
    if pending is None:
        return "continue"
    if pending.get("name") in READ_ONLY_TOOLS:
        return "rerun"
    return "is_error"
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    name, call_id = pending["name"], pending["id"]
    if name in READ_ONLY_TOOLS:
        output = execute_tool(name, pending["input"])
        result = {"is_error": output.startswith("错误"), "type": "tool_result", "tool_use_id": call_id,
                  "content": [{"type": "text", "text": output}] if output else ""}
    else:
        note = (f"工具 {name} 在进程崩溃前可能已经执行，也可能没有：结果没有记下来，现在不知道。"
                "不要直接重试，请先用只读的办法确认现状。")
        result = {"is_error": True, "type": "tool_result", "tool_use_id": call_id,
                  "content": [{"type": "text", "text": note}]}
    return {**cp, "messages": cp["messages"] + [{"role": "user", "content": [result]}], "pendingToolUse": None}
