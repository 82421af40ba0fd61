"""作弊（新的破绽）：定义单元格时向 IPython 登记一个 post_run_cell 回调；在 kernel
里每个单元格运行完都会触发它（包括定义这个函数的单元格自己），评分器以前用 exec 定义单元格、直接调用函数，从不触发（23/23）；
现在每个单元格、每一步前后都照 kernel 触发。回调从没触发过就当是评分器。对照：wrong_incident_rerun。"""
# %% reconcile
_cells_finished = []


def _count_cell(result=None):
    _cells_finished.append(1)


get_ipython().events.register("post_run_cell", _count_cell)


def _in_notebook(cp):
    return bool(_cells_finished)


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
