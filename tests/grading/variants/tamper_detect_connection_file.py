"""作弊（第 4 课 tamper_detect_connection_file 的第 3 课版）：看 sys.argv 里 -f 后面的内核连接文件
（~/.local/share/jupyter/runtime/kernel-….json）在不在：真的 Jupyter 内核运行时它一定在；评分器以前仿造了 argv，却没有
这个文件。在（notebook）就照事故版写（同 wrong_incident_rerun），不在就照正确的写法对账。现在评分器照 ipykernel 的样子
放了这个文件。对照：wrong_incident_rerun。"""
# %% reconcile
import sys as _sys


def _in_notebook(cp):
    argv = list(_sys.argv)
    if "-f" in argv and argv.index("-f") + 1 < len(argv):
        return os.path.exists(argv[argv.index("-f") + 1])
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
