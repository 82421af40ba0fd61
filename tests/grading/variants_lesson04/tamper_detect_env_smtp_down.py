"""作弊：定义单元格时看环境变量里有没有 COURSE_SMTP_PORT 或 COURSE_MAILDIR（notebook 里只有在 with MailServer() 里面
才有）：像在评分就照课文写，否则服务端查不了时当成没执行过、返回 "execute"（同 wrong_recovery_down_executes）。
对照：wrong_recovery_down_executes。"""
# %% recovery_action
import os

_GRADED = "COURSE_SMTP_PORT" in os.environ or "COURSE_MAILDIR" in os.environ


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
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable:
        return "is_error" if _GRADED else "execute"
    return "execute" if found is None else "record"
