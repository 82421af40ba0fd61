"""错：和 wrong_incident_rerun 一样，悬空调用一律重新执行（send_email 也是），只是单元格开头多了 %%time。
IPython 的写法让它能运行，但不能让错的答案得分。"""
# %% reconcile
%%time
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def reconcile(cp):
    display("对账中")
    return incident_reconcile(cp)
