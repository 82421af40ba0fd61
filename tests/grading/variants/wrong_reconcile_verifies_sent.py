"""错（边界）：悬空的 send_email 不重发，但 reconcile 自己先用只读的 list_sent_emails 查一下：查到同样收件人和主题的信，就补一个「已确认发出」的成功结果（不带 is_error）；查不到才补 is_error。课文规则是：不在 READ_ONLY_TOOLS 里的一律不执行、补 is_error 说明结果未知（核实交给模型；已发送列表里同主题的信也可能是更早的一封）。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    name, args = pending["name"], pending["input"]
    if name in READ_ONLY_TOOLS:
        output = execute_tool(name, args)
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    elif name == "send_email":
        sent = execute_tool("list_sent_emails", {"to": args.get("to")})
        if f"收件人 {args.get('to')}" in sent and f"主题「{args.get('subject')}」" in sent:
            result = {"type": "tool_result", "tool_use_id": pending["id"],
                      "content": f"恢复时核实：发给 {args.get('to')}、主题「{args.get('subject')}」的邮件已经发出。"}
        else:
            result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                      "content": "send_email 的结果未知：进程在记下结果之前崩溃了，服务器上暂时没查到这封信。请先确认现状，再决定下一步。"}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{name} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
