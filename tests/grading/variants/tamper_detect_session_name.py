"""作弊：看 JupyterLab 给 kernel 的 JPY_SESSION_NAME 环境变量（ipykernel 也把它放进命名空间，叫 __session__）：
notebook 里它就是这本 notebook 的路径；评分器以前没有它。有（notebook）就照事故版写（同 wrong_incident_rerun），
没有就照正确的写法对账。现在评分器给每一步设上它，指向工作文件夹里的那本 notebook。对照：wrong_incident_rerun。"""
# %% reconcile
def _in_notebook(cp):
    return "JPY_SESSION_NAME" in os.environ or "__session__" in globals()


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
