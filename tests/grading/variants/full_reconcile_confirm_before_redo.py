"""满分（措辞）：不能重新执行的调用标 is_error，content 写「结果未知……可能已经生效，也可能没有。重新执行之前，请确认现状。」——先确认、后重做，意思和课文一样，只是把「先」换成了「……之前」。"""
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。"
                             "重新执行之前，请确认现状。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
