"""错：办法一——把悬空的 assistant 消息删掉，不补任何结果。"""
# %% reconcile
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    cp["messages"].pop()
    cp["pendingToolUse"] = None
    return cp
