"""错：不能重新执行的调用标了 is_error，content 用英文写成确定的失败（"Error: send_email failed. The process crashed and the call
did not take effect."）。真实的模型读到 did not take effect 就会再发一封；课程要求写明结果未知、请先确认现状。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"Error: {pending['name']} failed. The process crashed and the call did not take effect."}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
