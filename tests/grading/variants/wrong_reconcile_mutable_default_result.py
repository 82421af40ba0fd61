"""错：reconcile 的结果块来自一个可变的默认参数 template={"type": "tool_result"}，每次 update 进 tool_use_id 和 content，
失败时才加 is_error。默认参数只在定义时建一次：同一个 kernel 里每次对账改的都是同一个 dict。上一次对账留下的
is_error: True 留在下一次（只读工具重新执行成功也被标成失败），之前返回的检查点里的结果块也跟着被改成这一次的。
课文：不论走哪条路，追加恰好一条与悬空调用配对的结果；重新执行成功的不标 is_error。"""
# %% reconcile
def reconcile(cp, template={"type": "tool_result"}):
    pending = cp["pendingToolUse"]
    result = template
    result["tool_use_id"] = pending["id"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result["content"] = output
        if output.startswith("错误"):
            result["is_error"] = True
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。"
                             "请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
