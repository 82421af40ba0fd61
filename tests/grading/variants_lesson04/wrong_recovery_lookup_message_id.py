"""错误（把键和 Message-ID 弄混）：recovery_action 问服务端时用的不是 tool_use id，而是第 3 节演示里打印出来的
Message-ID 的样子 f"<{id}@idempotency.example.com>"（「服务器记的是 Message-ID」）。课程的 lookup(name, key) 要的是
执行时带的那把键本身：这样问永远问不到，服务端收到过的调用被判成 "execute"（该 "record"）。"""
# %% recovery_action
def recovery_action(cp, records, lookup):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    kinds = {record["type"] for record in records if record.get("toolUseId") == pending["id"]}
    if "outcome" in kinds:
        return "reuse"
    if "intent" not in kinds:
        return "execute"
    message_id = f"<{pending['id']}@idempotency.example.com>"
    try:
        found = lookup(pending["name"], message_id)
    except ServiceUnavailable:
        return "is_error"
    return "execute" if found is None else "record"
