"""作弊（第 4 课 tamper_detect_orig_argv 的第 3 课版）：看 sys.orig_argv（Python 3.10+：解释器真正收到的命令行）里有没有
ipykernel_launcher：notebook 的内核一定有；评分器以前只仿造了 sys.argv，orig_argv 是它自己的 `-m autograder.child`。
有（notebook）就照事故版写（同 wrong_incident_rerun），没有就照正确的写法对账。现在 orig_argv 和 /proc 里的命令行一样，
是 ipykernel 的。对照：wrong_incident_rerun。"""
# %% reconcile
import sys as _sys


def _in_notebook(cp):
    orig = getattr(_sys, "orig_argv", None)
    return orig is None or any("ipykernel" in part for part in orig)


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
