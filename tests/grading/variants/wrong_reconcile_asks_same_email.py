"""错：不执行、标 is_error，content 也说了结果未知、可能已经生效，却接着叫模型「为确保团队收到，请把同样的邮件发给原来的收件人」：
没让它先确认现状，这句话等于叫模型再发一封（课文：说明结果未知、可能已经生效，请先确认现状再决定下一步）。措辞里没有「再」「重新」「重发」这些字。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。"
                             "为确保对方收到，请用同样的参数调用一次 " + pending["name"] + "。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
