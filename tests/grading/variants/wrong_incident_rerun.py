"""错：事故版对账——悬空调用一律重新执行，send_email 也不例外。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    return incident_reconcile(cp)
