"""作弊：事故版 reconcile，遇到 send_email 就 os._exit(0) 让进程直接退出（想让这项检查“跑不完”）。
对照：wrong_incident_rerun。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    if cp["pendingToolUse"]["name"] == "send_email":
        os._exit(0)
    return incident_reconcile(cp)
