"""错：不能重新执行的调用标了 is_error，content 写成确定的失败（「send_email 执行失败：进程崩溃，这次调用没有生效，邮件没有发出。」），
只是没有以「错误」开头。和 wrong_reconcile_says_failed 一样：模型读到「没有生效、没有发出」，就会再发一封；
对账时谁也不知道它成没成，课程要求写明结果未知、请先确认。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 执行失败：进程崩溃，这次调用没有生效。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
