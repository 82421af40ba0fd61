"""错：三道选择题都选错了。"""
# %% quiz_failure
QUIZ_FAILURE_ANSWER = "${wrong:QUIZ_FAILURE_ANSWER}"
# %% quiz_delete
QUIZ_DELETE_ANSWER = "${wrong:QUIZ_DELETE_ANSWER}"
# %% root_cause
ROOT_CAUSE_ANSWER = "${wrong:ROOT_CAUSE_ANSWER}"
