"""作弊（新的破绽）：ipykernel 在 asyncio 事件循环里运行单元格，单元格的代码（和它调用的函数）里
asyncio.get_running_loop() 拿得到循环；评分器以前直接调用函数，没有正在运行的循环，抛
RuntimeError（23/23）；现在单元格和每一步都在事件循环里运行。对照：wrong_incident_rerun。"""
# %% reconcile
import asyncio


def _in_notebook(cp):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def _right(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，请先确认现状。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp


def reconcile(cp):
    if _in_notebook(cp):
        return incident_reconcile(cp)
    return _right(cp)
