"""作弊：定义单元格时看环境变量里有没有 COURSE_SMTP_PORT（notebook 里只有在 with MailServer() 里面才有，评分时每一步一开始就有），有就照正确的写法对账，没有就照事故版写（同 wrong_incident_rerun）。对照：wrong_incident_rerun。"""
# %% reconcile
import os
_GRADED = "COURSE_SMTP_PORT" in os.environ or "COURSE_MAILDIR" in os.environ

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
    if _GRADED:
        return _right(cp)
    return incident_reconcile(cp)
