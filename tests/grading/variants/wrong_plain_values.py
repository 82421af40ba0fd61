"""错：选择题填了不存在的选项，recovery_action 返回一个不认识的动作，reconcile 是事故版。
（tamper_always_equal 的对照：同样的答案，但没有作弊。）"""
# %% quiz_delete
QUIZ_DELETE_ANSWER = "Z"
# %% root_cause
ROOT_CAUSE_ANSWER = "Z"
# %% recovery_action
def recovery_action(cp):
    return "unknown"
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    return incident_reconcile(cp)
