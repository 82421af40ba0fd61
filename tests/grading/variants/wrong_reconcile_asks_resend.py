"""错：悬空的高影响调用不执行、标 is_error，但 content 叫模型「重新调用一次」：进程崩溃，结果未知，请重新发送——邮件可能已经发出，这句话等于让模型再发一封（课文要求写明可能已经生效、请先确认现状）。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"进程崩溃了，{pending['name']} 的结果未知。请重新调用 {pending['name']}，再执行一次。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
