"""错：悬空的只读调用如果在历史里已经有一次同名同参数、答复过的调用，就直接抄那次的结果，「省一次读」，不再重新执行。
文件在两次之间可能变了（课文小测：崩溃之后有人把纪要挪走了），抄来的是旧内容；课文规则：只读工具再执行一次，它这次的输出就是结果。"""
# %% reconcile
def _earlier_result(messages, name, tool_input):
    """历史里同名同参数、已经有结果的那次调用的 tool_result（没有就是 None）。"""
    for i, message in enumerate(messages[:-1]):
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_use" and block["name"] == name and block["input"] == tool_input:
                following = messages[i + 1]["content"] if i + 1 < len(messages) else []
                for answer in following if isinstance(following, list) else []:
                    if answer.get("type") == "tool_result" and answer.get("tool_use_id") == block["id"]:
                        return answer
    return None


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        earlier = _earlier_result(cp["messages"], pending["name"], pending["input"])
        if earlier is not None:  # 同样的读取刚做过，直接用它的结果
            result = {**earlier, "tool_use_id": pending["id"]}
        else:
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
