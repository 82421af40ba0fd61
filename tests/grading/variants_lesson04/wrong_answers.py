"""错误：三道选择题都答错。"""
# %% quiz_exactly_once
QUIZ_EXACTLY_ONCE_ANSWER = "${wrong:QUIZ_EXACTLY_ONCE_ANSWER}"
# %% quiz_key
QUIZ_KEY_ANSWER = "${wrong:QUIZ_KEY_ANSWER}"
# %% root_cause
ROOT_CAUSE_ANSWER = "${wrong:ROOT_CAUSE_ANSWER}"
