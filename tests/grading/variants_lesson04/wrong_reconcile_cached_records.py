"""错误：reconcile 把每本台账第一次读到的记录缓存在一个全局 dict 里（「台账只追加，读一次就够了」），以后同一个内核里
再对账同一本台账时用的是旧记录：之后 execute_with_ledger 追加的 intent 看不见，「有意图没结果」被当成「从没开始」，
服务端不认键时就会再做一次。notebook 里同一个内核反复 run_agent 同一个检查点（模型出错抛异常、再运行单元格续跑）就是这样。"""
# %% reconcile
_LEDGER_CACHE = {}


def _records(ledger):
    key = os.path.abspath(ledger)
    if key not in _LEDGER_CACHE:
        _LEDGER_CACHE[key] = read_ledger(ledger)
    return _LEDGER_CACHE[key]


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = _records(ledger)
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
