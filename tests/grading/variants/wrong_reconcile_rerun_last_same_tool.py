"""错：重新执行只读调用时，input 取的是历史里最后一次同名调用的 input，而不是悬空调用自己的。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        tool_input = pending["input"]
        for message in reversed(cp["messages"][:-1]):
            if message["role"] == "assistant" and isinstance(message["content"], list):
                found = [b for b in message["content"] if b.get("type") == "tool_use" and b["name"] == pending["name"]]
                if found:
                    tool_input = found[-1]["input"]
                    break
        output = execute_tool(pending["name"], tool_input)
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": "结果未知：崩溃前没有记下结果。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
