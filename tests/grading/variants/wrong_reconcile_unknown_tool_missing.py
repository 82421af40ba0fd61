"""错：reconcile 把悬空调用分成三类：只读的再执行；send_email 补「结果未知」；课程六个工具以外的名字补
「错误：没有这个工具，调用没有执行」（is_error）——「不认识的工具不可能执行过」。可 agent 的工具表以后会加工具
（课文举的 delete_branch），悬空的这次可能已经生效；写成「确实没有执行」，模型就放心再做一次。
课文：不在 READ_ONLY_TOOLS 里的——send_email，或者任何课程没提过的工具——不执行，is_error 并说明结果未知。"""
# %% reconcile
COURSE_TOOLS = {"list_dir", "read_file", "grep", "web_search", "list_sent_emails", "send_email"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    name = pending["name"]
    if name in READ_ONLY_TOOLS:
        output = execute_tool(name, pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    elif name in COURSE_TOOLS:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{name} 的执行结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。"
                             "请先确认现状，再决定下一步。"}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"错误：没有名为 {name} 的工具，这次调用没有执行。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
