"""错：名单之外，名字以 get_、fetch_、search_、check_ 开头的工具也当成只读（凭名字猜），会被重新执行。"""
# %% recovery_action
def looks_read_only(name):
    return name in READ_ONLY_TOOLS or name.startswith(("get_", "fetch_", "search_", "check_", "view_", "show_"))


def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if looks_read_only(pending["name"]) else "is_error"
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if looks_read_only(pending["name"]):
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：崩溃前没有记下结果。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
