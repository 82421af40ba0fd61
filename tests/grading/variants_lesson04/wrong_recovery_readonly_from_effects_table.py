"""错误（第一次写时常见）：recovery_action 用刚在第 2 节填好的 EFFECTS 判断只读（EFFECTS.get(name) == "read_only"），
不看 READ_ONLY_TOOLS：list_dir、read_file 这些只读工具不在 EFFECTS 里，悬空时去翻台账，没有记录就返回 "execute"
（该返回 "rerun"）。经参考答案的 reconcile 执行时 execute_with_ledger 对只读工具照样直接执行，所以只在判断上错。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if EFFECTS.get(pending["name"]) == "read_only":
        return "rerun"
    kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
