"""零分：所有答题单元格都没动（学生版原样交上来）。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    raise NotImplementedError("请在这里写你的代码")


def load_checkpoint(path=CHECKPOINT_PATH):
    raise NotImplementedError("请在这里写你的代码")
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    raise NotImplementedError("请在这里写你的代码")
# %% quiz_failure
raise NotImplementedError("请在这里写你的代码")
# %% quiz_delete
raise NotImplementedError("请在这里写你的代码")
# %% read_only_tools
raise NotImplementedError("请在这里写你的代码")
# %% reconcile
raise NotImplementedError("请在这里写你的代码")
# %% recovery_action
def recovery_action(cp):
    raise NotImplementedError("请在这里写你的代码")
# %% root_cause
raise NotImplementedError("请在这里写你的代码")
