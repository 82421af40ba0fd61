"""边界（措辞）：不能重新执行的调用标 is_error，content 照 run_agent 的习惯以「错误：」开头，但接着说「无法确定它是否已经生效……请先确认现状」——说的是结果未知，只是没用「未知/不确定/可能」这几个词。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"错误：无法确定 {pending['name']} 是否已经生效——进程在记下结果之前崩溃了。"
                             "请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
