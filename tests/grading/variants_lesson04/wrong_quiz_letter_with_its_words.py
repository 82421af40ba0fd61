"""错误：小测答案把选项的内容也抄了进去（"C. 检查点里的 tool_use id"）：答案要写成一个字母的字符串。notebook 里的格式检查会提示，
隐藏测试也要说是格式的问题，而不是说选错了。"""
# %% quiz_key
QUIZ_KEY_ANSWER = "${wide:QUIZ_KEY_ANSWER}. 检查点里的那个 id"
