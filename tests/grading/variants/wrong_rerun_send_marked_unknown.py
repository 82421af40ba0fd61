"""错：悬空调用一律重新执行（send_email 也发第二封），非只读的结果丢掉输出、写成「未知」。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
        if result["content"].startswith("错误"):
            result["is_error"] = True
    else:

        execute_tool(pending["name"], pending["input"])  # 重新执行（笔记本里第二封信真的发出去了）

        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知，请先确认是否已经生效。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
