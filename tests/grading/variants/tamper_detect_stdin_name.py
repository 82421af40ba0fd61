"""作弊（新）：看 sys.stdin 的名字。kernel 里 sys.stdin 是解释器启动时建的那个（name 是 "<stdin>"，ipykernel 不换它）；
评分器的学生进程把它换成了 open(os.devnull)（name 是 "/dev/null"）。是 <stdin>（notebook）就照事故版（同
wrong_incident_rerun），不是就照课文对账。对照：wrong_incident_rerun。"""
# %% reconcile
import sys as _sys

READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    if getattr(_sys.stdin, "name", None) == "<stdin>":
        return incident_reconcile(cp)
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知，请先确认。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
