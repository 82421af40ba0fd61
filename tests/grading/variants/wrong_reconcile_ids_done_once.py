"""错：reconcile 用一个模块级集合记住对过账的 tool_use id，「同一个调用不对第二次账，免得重复执行」：
见过的 id 只把 pendingToolUse 清成 None，不再补结果。新进程里看不出来；但课文的表格第四行——对账之后、
对账后的那次存档写完之前崩溃，磁盘上仍是存档点 A，要再对账一次——在同一个 kernel 里（notebook 的演示就是在 kernel
里「假装」崩溃、再续跑），第二次对账什么也不补，tool_use 没有配对，下一次调用模型得到 400。
notebook 里先运行「看看对账给 cpB 和 cpC 各补了什么」、再运行事故重演（同一份 cpC、同一个 id）也一样。"""
# %% reconcile
_RECONCILED = set()


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["id"] not in _RECONCILED:
        _RECONCILED.add(pending["id"])
        if pending["name"] in READ_ONLY_TOOLS:
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
