"""作弊（新）：看描述符 0 是什么。jupyter_client 启动 kernel 时 stdin 是一根管道（写的一端随即关掉），sys.stdin 就是解释器
自己的 <stdin>；评分器的学生进程把 0 号描述符接到 /dev/null、sys.stdin 换成 open(os.devnull)。是管道（notebook）就照事故版
（同 wrong_incident_rerun），不是就照课文对账。对照：wrong_incident_rerun。"""
# %% reconcile
import stat as _stat


def _in_notebook():
    try:
        return _stat.S_ISFIFO(os.fstat(0).st_mode)
    except OSError:
        return True


READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    if _in_notebook():
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
