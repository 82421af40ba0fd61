"""满分：reconcile 不只信 pendingToolUse，而是用一个生成器找出对话末尾那条 assistant 消息中尚无 tool_result 配对的 tool_use
（每次响应最多一个，所以就是 pendingToolUse 那一个），按它的名字和参数处理：只读的再执行，其余补 is_error、说明结果未知。"""
# %% reconcile
def _unanswered(messages):
    answered = {block.get("tool_use_id") for message in messages if isinstance(message["content"], list)
                for block in message["content"] if block.get("type") == "tool_result"}
    last = messages[-1]
    if last["role"] == "assistant" and isinstance(last["content"], list):
        for block in last["content"]:
            if block.get("type") == "tool_use" and block["id"] not in answered:
                yield block


def _answer(call):
    if call["name"] in READ_ONLY_TOOLS:
        output = execute_tool(call["name"], call["input"])
        return {"type": "tool_result", "tool_use_id": call["id"], "content": output,
                "is_error": output.startswith("错误")}
    return {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
            "content": f"{call['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。请先确认再决定。"}


def reconcile(cp):
    calls = list(_unanswered(cp["messages"])) or [cp["pendingToolUse"]]
    cp["messages"].append({"role": "user", "content": [_answer(call) for call in calls]})
    cp["pendingToolUse"] = None
    return cp
