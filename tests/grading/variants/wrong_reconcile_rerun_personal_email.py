"""错：觉得只有群发给团队的邮件重复了才麻烦：收件人不是 team/all 开头的列表地址时，send_email 被当作可以重做，再执行一次。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    to = str(pending["input"].get("to", "")) if isinstance(pending["input"], dict) else ""
    personal = pending["name"] == "send_email" and not to.split("@")[0] in ("team", "all", "everyone")
    if pending["name"] in READ_ONLY_TOOLS or personal:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
