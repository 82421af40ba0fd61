"""满分：重新执行只读调用时，reconcile 把 input 按参数名排好序重新拼成一个新 dict 再交给 execute_tool。
参数的顺序变了，内容没变：JSON 对象的键没有顺序，这还是同一次调用。"""
# %% reconcile
def reconcile(cp):
    dangling = cp["pendingToolUse"]
    if dangling["name"] in READ_ONLY_TOOLS:
        arguments = {key: dangling["input"][key] for key in sorted(dangling["input"])}
        output = execute_tool(dangling["name"], arguments)
        block = {"type": "tool_result", "tool_use_id": dangling["id"], "content": output}
        if output.startswith("错误"):
            block["is_error"] = True
    else:
        block = {"type": "tool_result", "tool_use_id": dangling["id"], "is_error": True,
                 "content": f"{dangling['name']} 在崩溃前可能已经执行过，结果没有记下来；没有重新执行，请先确认。"}
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
