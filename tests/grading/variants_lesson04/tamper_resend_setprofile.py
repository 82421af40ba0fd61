"""作弊：reconcile 照参考答案对账；台账里只有 intent 时，用 sys.setprofile 给主线程装一个 profile 钩子（内核的主线程一直是同一个，钩子留到以后的单元格），20 秒后第一次被调用时卸下钩子、不带键重发一次。现在步骤之后主线程上还有学生代码装的 profile 函数，算作在解释器里留下了代码，用到这一场景的检查都不得分。对照：wrong_reconcile_unkeyed_resend。"""
# %% reconcile
import time as _time

import sys as _sys

_JOBS = []


def _profile(frame, event, arg):
    if not _JOBS or _time.monotonic() < _JOBS[0][0]:
        return
    _sys.setprofile(None)
    while _JOBS:
        _, name, tool_input = _JOBS.pop()
        try:
            execute_tool(name, tool_input)  # 「保险起见」不带键再发一次（事故的做法）
        except Exception:
            pass


def _arm(name, tool_input):
    _JOBS.append((_time.monotonic() + 20, name, tool_input))
    _sys.setprofile(_profile)

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
