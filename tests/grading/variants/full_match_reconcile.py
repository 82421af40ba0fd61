"""满分：READ_ONLY_TOOLS 写成一个 dict（工具名 → 为什么重做无害），in 照样按名字精确比较；recovery_action 和 reconcile
用 match 语句分派，reconcile 返回 copy.deepcopy 出来的新检查点，结果未知的说明中英文各一句。"""
# %% read_only_tools
READ_ONLY_TOOLS = {
    "list_dir": "只列出文件夹的内容",
    "read_file": "只读文件",
    "grep": "只在文件里找行",
    "web_search": "只在离线语料库里搜索",
    "list_sent_emails": "只查看已经发出的邮件，本身不发信",
}
# %% recovery_action
def recovery_action(cp):
    match cp["pendingToolUse"]:
        case None:
            return "continue"
        case {"name": str(name)} if name in READ_ONLY_TOOLS:
            return "rerun"
        case _:
            return "is_error"
# %% reconcile
import copy


def reconcile(cp):
    cp = copy.deepcopy(cp)
    pending = cp["pendingToolUse"]
    match recovery_action(cp):
        case "rerun":
            output = execute_tool(pending["name"], pending["input"])
            result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                      "is_error": output.startswith("错误")}
        case _:
            result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                      "content": (f"结果未知：{pending['name']} 在崩溃前可能已经执行，也可能没有。请先确认现状再决定。"
                                  f" (Outcome unknown: {pending['name']} may or may not have taken effect; "
                                  "check before doing it again.)")}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
