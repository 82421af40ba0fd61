"""错：按动词列黑名单（名字里有 send、delete、transfer、deploy…… 才算高影响），其余一律当只读重新执行：
notify_oncall、archive_thread、publish_report 这类动词不在名单上的高影响工具被重新执行。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}
DANGEROUS_VERBS = ("send", "delete", "remove", "drop", "transfer", "pay", "charge", "deploy", "cancel", "post",
                   "write", "update", "create", "rotate", "email", "mail", "exec", "run", "kill")


def is_dangerous(name):
    return any(verb in name for verb in DANGEROUS_VERBS)


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if is_dangerous(pending["name"]):
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了。请先确认现状。"}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": execute_tool(pending["name"], pending["input"])}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
# %% recovery_action
def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "is_error" if is_dangerous(pending["name"]) else "rerun"
