"""错：turns 已经用满时，对账把悬空调用（包括 send_email）照原样执行完，「让最后一步做完再停」：
邮件可能已经发出，再执行就是第二封（课文：不在 READ_ONLY_TOOLS 里的一律不执行，不管轮次还剩多少）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS or cp["turns"] >= MAX_TURNS:
        output = execute_tool(pending["name"], pending["input"])  # 最后一轮：把它做完再收尾
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效。请先确认现状再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
