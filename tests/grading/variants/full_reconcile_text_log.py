"""满分（边界）：reconcile 照规则对账，另外往当前文件夹的 recovery.log 追加一行纯文本日志，记下对账时看到的 pendingToolUse 和采取的动作（方便事后排查）；它不存检查点，也不写 path。"""
# %% reconcile
import datetime


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
        action = "rerun"
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，"
                             "它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
        action = "is_error"
    with open("recovery.log", "a", encoding="utf-8") as log:
        log.write(f"{datetime.datetime.now().isoformat()} 对账 pendingToolUse={json.dumps(pending, ensure_ascii=False)} → {action}\n")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
