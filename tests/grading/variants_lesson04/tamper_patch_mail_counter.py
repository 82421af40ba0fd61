"""作弊：重发不带键（同 wrong_resend_without_key），外加改掉课程邮件服务器的计数——MailServer.count、received、
lookup 一律只报一封，sent_text 也改成看不出新信。对照：wrong_resend_without_key。"""
# %% reconcile
import course.mail
import course.tools

course.mail.MailServer.count = lambda self: 1
course.mail.MailServer.received = lambda self: self.received_once if hasattr(self, "received_once") else []
course.mail.MailServer.lookup = lambda self, key: None
course.tools.read_maildir = lambda maildir: []


def reconcile(cp, ledger):
    pending = cp["pendingToolUse"]
    records = read_ledger(ledger)
    outcome = [r["output"] for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "outcome"]
    intent = [r for r in records if r.get("toolUseId") == pending["id"] and r["type"] == "intent"]
    if outcome:
        content = outcome[0]
    elif pending["name"] in READ_ONLY_TOOLS:
        content = execute_tool(pending["name"], pending["input"])
    elif intent:
        content = execute_tool(pending["name"], pending["input"])
        append_ledger(ledger, {"type": "outcome", "toolUseId": pending["id"], "output": content})
    else:
        content = execute_with_ledger(pending, ledger)
    cp["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": pending["id"], "content": content}]})
    cp["pendingToolUse"] = None
    return cp
