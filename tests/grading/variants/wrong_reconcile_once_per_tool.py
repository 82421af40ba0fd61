"""错（probe10a）：reconcile 用一个模块级的集合记住「这个工具已经对过账」（以工具名为键），同一个 kernel 里再遇到同名工具的悬空调用就
直接清掉 pendingToolUse、什么也不补（「别重复对账」）。第二个悬空的 send_email 的 tool_use 因此缺了它的 tool_result，下一次调用模型 400。"""
# %% reconcile
_RECONCILED_TOOLS = set()


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in _RECONCILED_TOOLS:
        cp["pendingToolUse"] = None  # 已经对过账了
        return cp
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
        _RECONCILED_TOOLS.add(pending["name"])
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
