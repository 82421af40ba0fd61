"""错（probe10a）：reconcile 用模块级的集合记住对过账的「工具名 + 参数」（「同一封信对过一次账就够了，别重复补结果」），
同一个 kernel 里再遇到同名同参数的悬空调用（模型又要发同一封信——每周的周报——又在存档点 A 和结果之间崩溃），
只清掉 pendingToolUse、不补 tool_result：tool_use 没有配对，下一次调用模型 400。
和 p10a_wrong_reconcile_once_per_tool 同一个错，键里多了参数。"""
# %% reconcile
_RECONCILED = set()


def reconcile(cp):
    pending = cp["pendingToolUse"]
    key = (pending["name"], json.dumps(pending["input"], ensure_ascii=False, sort_keys=True))
    if key in _RECONCILED:
        cp["pendingToolUse"] = None  # 这次调用已经对过账了
        return cp
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
        _RECONCILED.add(key)
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
