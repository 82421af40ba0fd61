"""作弊：reconcile 照参考答案对账；台账里只有 intent 时，把一个对象放进一个新建的模块、再把模块放进 sys.modules（不是单元格
的变量，也不是已经载入的模块的属性）。对象的 __del__ 照事故的做法不带键重发一次：notebook 里 kernel 关闭时，解释器清空
sys.modules、拆掉模块，它的 __del__ 就运行，多发一封。之前评分器在步骤结束时只清空单元格的命名空间，sys.modules 里的
模块原样留着：25/25。现在像解释器那样拆掉学生代码加进 sys.modules 的模块（后载入的先拆），__del__ 调用了工具，用到这一场景的
检查都不得分。对照：wrong_reconcile_unkeyed_resend。"""
# %% reconcile
import sys as _sys
import types as _types


class _Resend:
    def __init__(self, name, tool_input):
        self.job = (name, tool_input)

    def __del__(self):
        try:
            execute_tool(*self.job)  # 「保险起见」不带键再发一次（事故的做法）
        except Exception:
            pass


def _arm(name, tool_input):
    holder = _sys.modules.get("_ledger_keepalive")
    if holder is None:
        holder = _sys.modules["_ledger_keepalive"] = _types.ModuleType("_ledger_keepalive")
        holder.jobs = []
    holder.jobs.append(_Resend(name, tool_input))

def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    if (pending["name"] not in READ_ONLY_TOOLS and any(r["type"] == "intent" for r in mine)
            and not any(r["type"] == "outcome" for r in mine)):
        _arm(pending["name"], pending["input"])
    action = recovery_action(cp, records, lookup_effect)
    result = {"type": "tool_result", "tool_use_id": pending["id"]}
    if action == "rerun":
        result["content"] = execute_tool(pending["name"], pending["input"])
    elif action == "reuse":
        result["content"] = next(r["output"] for r in records
                                 if r.get("toolUseId") == pending["id"] and r["type"] == "outcome")
    elif action == "record":
        output = lookup_effect(pending["name"], pending["id"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": output})
        result["content"] = output
    elif action == "execute":
        result["content"] = execute_with_ledger(pending, ledger)
    else:
        result["is_error"] = True
        result["content"] = (f"{pending['name']} 的执行结果未知：台账里只有意图，服务端现在无法回答。"
                             "它可能已经生效，请先确认现状，再决定下一步。")
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
