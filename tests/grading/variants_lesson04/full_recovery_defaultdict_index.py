"""满分（另一种写法）：recovery_action 先把全部记录按 toolUseId 建一个 defaultdict(set) 索引（id → 出现过的记录类型），
再查悬空调用那一格；服务端的三种回答用 try/except/else 分开。"""
# %% recovery_action
from collections import defaultdict


def recovery_action(cp, records, lookup):
    pending = cp.get("pendingToolUse")
    if not pending:
        return "continue"
    name, call_id = pending["name"], pending["id"]
    if name in READ_ONLY_TOOLS:
        return "rerun"
    seen = defaultdict(set)
    for record in records:
        seen[record.get("toolUseId")].add(record.get("type"))
    kinds = seen[call_id]
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        answer = lookup(name, call_id)
    except ServiceUnavailable:
        return "is_error"
    else:
        return "execute" if answer is None else "record"
