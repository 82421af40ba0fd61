"""错：READ_ONLY_TOOLS 写成了一个字符串（不是 set），`name in READ_ONLY_TOOLS` 于是成了子串测试：
名字是某个只读工具名一部分的工具——email、search、file、list、dir、read、sent_email……——都被当成只读重新执行
（一个叫 email 的发信工具会再发一封）。课文：READ_ONLY_TOOLS 是一个 set，名字在集合里才重做。"""
# %% read_only_tools
READ_ONLY_TOOLS = "read_file, grep, list_dir, web_search, list_sent_emails"
