"""错：不执行、标 is_error，但 content 叫模型「补发一次」：结果未知，为了确保团队收到，请把这封邮件补发一次——邮件可能已经发出，这等于叫模型再发一封（课文要求说明可能已经生效、请先确认现状）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了。为了确保收件人收到，请把这封邮件补发一次。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
