"""错：不能重新执行的悬空调用，如果历史里已经有一次同名同参数、成功（没有 is_error）的调用，就认定「这是重复的一次，之前已经做过」，
补一个不带 is_error 的结果「已经执行过，没有再执行」。同样的信可能本来就要再发一次（每周的周报），之前那次也不说明这次发没发出：
结果仍是未知。课文规则：不在 READ_ONLY_TOOLS 里的一律不执行、补 is_error、说明结果未知（和 wrong_reconcile_verifies_sent 同一类错）。"""
# %% reconcile
def _succeeded_before(messages, name, tool_input):
    for i, message in enumerate(messages[:-1]):
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_use" and block["name"] == name and block["input"] == tool_input:
                following = messages[i + 1]["content"] if i + 1 < len(messages) else []
                for answer in following if isinstance(following, list) else []:
                    if (answer.get("type") == "tool_result" and answer.get("tool_use_id") == block["id"]
                            and not answer.get("is_error")):
                        return True
    return False


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    elif _succeeded_before(cp["messages"], pending["name"], pending["input"]):
        result = {"type": "tool_result", "tool_use_id": pending["id"],
                  "content": f"同样的 {pending['name']} 调用之前已经成功执行过，这次没有再执行。"}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
