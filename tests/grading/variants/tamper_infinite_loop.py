"""作弊：事故版 reconcile，遇到 send_email 就进入死循环（想让评分卡住）。对照：wrong_incident_rerun。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    while cp["pendingToolUse"]["name"] == "send_email":
        pass
    return incident_reconcile(cp)
