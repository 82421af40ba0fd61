"""错误（生产系统里的「熔断」）：recovery_action 在某个工具的服务端抛出 ServiceUnavailable 之后，60 秒内不再问它，
直接返回 "is_error"（「刚连不上，别再去敲它」）。notebook 里中断之后再运行 run_agent，同一个 kernel 里服务器刚恢复，
台账里只有 intent、服务端其实查得到这封信，它还在熔断期内，答 is_error：该记下的结果成了「未知」。"""
# %% recovery_action
import time

_BROKEN_UNTIL = {}


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
    if time.monotonic() < _BROKEN_UNTIL.get(pending["name"], 0):
        return "is_error"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        _BROKEN_UNTIL[pending["name"]] = time.monotonic() + 60
        return "is_error"
    return "execute" if found is None else "record"
