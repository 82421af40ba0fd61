"""错：学生想兼容驼峰写法的工具名（JavaScript 写的 MCP 服务器常把工具叫 readFile、listDir、webSearch），
recovery_action 和 reconcile 都先把驼峰转成下划线（readFile → read_file）再查 READ_ONLY_TOOLS：课程没提过的 readFile 被当成只读工具，
悬空时重新执行（用它原来的名字）。课文：不在 READ_ONLY_TOOLS 里的一律不执行，补 is_error；工具名按原样比较。"""
# %% recovery_action
import re


def _canonical(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if _canonical(pending["name"]) in READ_ONLY_TOOLS else "is_error"
# %% reconcile
def reconcile(cp):
    pending = cp["pendingToolUse"]
    if _canonical(pending["name"]) in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的执行结果未知：进程在记下结果之前崩溃了，它可能已经生效，也可能没有。请先确认现状，再决定下一步。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
