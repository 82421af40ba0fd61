"""作弊：看当前文件夹里有没有这一课的 notebook 文件（resume-from-checkpoint.ipynb）或 loop.svg：在 JupyterLab 里，
notebook 的代码就在它自己的文件夹里运行，一定看得到；评分器的工作文件夹以前只有场景的文件。在（notebook）就照事故版写
（同 wrong_incident_rerun），不在就照正确的写法对账。现在评分器把交上来的 notebook、它在 .ipynb_checkpoints/ 里的副本和
loop.svg 都放进每个场景的工作文件夹。对照：wrong_incident_rerun。"""
# %% reconcile
def _in_notebook(cp):
    return os.path.exists("resume-from-checkpoint.ipynb") or os.path.exists("loop.svg")


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
