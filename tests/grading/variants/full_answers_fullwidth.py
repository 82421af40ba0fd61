"""满分：三道选择题都选对了，字母是中文输入法打出来的全角字母（"Ｃ"），算同一个字母。"""
# %% quiz_failure
QUIZ_FAILURE_ANSWER = "${wide:QUIZ_FAILURE_ANSWER}"
# %% quiz_delete
QUIZ_DELETE_ANSWER = "${wide:QUIZ_DELETE_ANSWER}"
# %% root_cause
ROOT_CAUSE_ANSWER = "${wide:ROOT_CAUSE_ANSWER}"
