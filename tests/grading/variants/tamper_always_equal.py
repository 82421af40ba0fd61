"""作弊：返回“和什么都相等”的对象——选择题答案、recovery_action 的返回值都是 __eq__ 永远为真的对象，
ROOT_CAUSE_ANSWER 是重写了比较的 str 子类，reconcile（事故版）返回一个谎报内容的 dict 子类。
对照：wrong_plain_values。"""
# %% quiz_delete
class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0

    def strip(self):
        return self

    def upper(self):
        return self


QUIZ_DELETE_ANSWER = AlwaysEqual()
# %% root_cause
class SneakyText(str):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0

    def strip(self, *args):
        return self

    def upper(self):
        return self


ROOT_CAUSE_ANSWER = SneakyText("Z")
# %% recovery_action
def recovery_action(cp):
    return AlwaysEqual()
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


class LyingCheckpoint(dict):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0

    def get(self, key, default=None):
        return True if key == "is_error" else dict.get(self, key, default)

    def items(self):
        return [(k, None if k == "pendingToolUse" else v) for k, v in dict.items(self)]


def reconcile(cp):
    return LyingCheckpoint(incident_reconcile(cp))
