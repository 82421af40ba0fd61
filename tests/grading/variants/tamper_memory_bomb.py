"""作弊：事故版 reconcile，遇到 send_email 就不停地申请内存；小测单元格定义完答案也申请一块巨大的内存。
对照：wrong_incident_rerun。"""
# %% quiz_delete
QUIZ_DELETE_ANSWER = "${lower:QUIZ_DELETE_ANSWER}"
_ballast = bytearray(2 ** 42)
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    if cp["pendingToolUse"]["name"] == "send_email":
        hoard = []
        while True:
            hoard.append(bytearray(64 * 2 ** 20))
    return incident_reconcile(cp)
