"""满分（另一种写法）：recovery_action 问服务端时，ServiceUnavailable 先再试两次（间隔很短），三次都答不上来才判 is_error；
查询是只读的，多问几次无害。"""
# %% recovery_action
import time


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
    for attempt in range(3):
        try:
            found = lookup(pending["name"], pending["id"])
        except ServiceUnavailable:
            time.sleep(0.05 * (attempt + 1))
            continue
        return "execute" if found is None else "record"
    return "is_error"
