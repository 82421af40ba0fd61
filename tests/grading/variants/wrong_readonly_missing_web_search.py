"""错：只读工具的集合漏了 web_search：它的悬空调用被当成有副作用，不再重新执行。"""
# %% read_only_tools
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "list_sent_emails"}
