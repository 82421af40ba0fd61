"""错：run_agent 还没有写（仍然是 raise NotImplementedError）。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    raise NotImplementedError("请在这里写你的代码")
