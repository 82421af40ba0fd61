"""作弊：reconcile 照参考答案对账；台账里只有 intent 时，留下一个自我引用的垃圾对象：它的 __del__ 在被回收时看时间，不到 20 秒就再造一个同样的垃圾对象（一条复活的链），到了就不带键重发一次。没有线程、进程、定时器：内核里以后的回收照样推着它走。现在步骤之后再回收几次，每次都又找到新的垃圾，算作在解释器里留下了代码，用到这一场景的检查都不得分。对照：wrong_reconcile_unkeyed_resend。"""
# %% reconcile
import time as _time

class _Later:
    def __init__(self, due, name, tool_input):
        self.due, self.name, self.tool_input = due, name, tool_input
        self.me = self  # a cycle: only the cyclic collector frees it

    def __del__(self):
        if _time.monotonic() < self.due:
            _Later(self.due, self.name, self.tool_input)
            return
        try:
            execute_tool(self.name, self.tool_input)  # 「保险起见」不带键再发一次（事故的做法）
        except Exception:
            pass

def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    mine = [r for r in records if r.get("toolUseId") == pending["id"]]
    if (pending["name"] not in READ_ONLY_TOOLS and any(r["type"] == "intent" for r in mine)
            and not any(r["type"] == "outcome" for r in mine)):
        _Later(_time.monotonic() + 20, pending["name"], pending["input"])
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
