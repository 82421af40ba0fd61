"""零分：所有答题单元格都没动（学生版原样交上来）。"""
# %% lesson3_code
def save_checkpoint(state, path=CHECKPOINT_PATH):
    """第 3 课：临时文件 + flush + fsync + os.replace + fsync 文件夹。"""
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")


def load_checkpoint(path=CHECKPOINT_PATH):
    """第 3 课：文件不存在返回 None；坏文件或版本不符抛 ValueError（中文信息里写出路径）。"""
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")


def lesson3_reconcile(cp):
    """第 3 课的 reconcile：只读工具再执行一次，其余工具补 is_error=True 的结果。"""
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")
# %% effects
# 例如：EFFECTS = {"get_balance": "read_only", ...}
# YOUR CODE HERE
raise NotImplementedError("请在这里写你的代码")
# %% quiz_exactly_once
# 例如：QUIZ_EXACTLY_ONCE_ANSWER = "A"
# YOUR CODE HERE
raise NotImplementedError("请在这里写你的代码")
# %% quiz_key
# 例如：QUIZ_KEY_ANSWER = "A"
# YOUR CODE HERE
raise NotImplementedError("请在这里写你的代码")
# %% append_ledger
def append_ledger(path, record):
    """把 record 作为一行 JSON 追加到台账 path 的末尾；返回之前，这一行必须已经落盘。

    用 "a" 模式打开，写一整行（以换行结束），flush + fsync；这次追加创建了文件时，再 fsync 所在的文件夹。
    """
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")
# %% execute_with_ledger
def execute_with_ledger(call, ledger):
    """执行一次工具调用 call = {"id", "name", "input"}，返回输出文本。

    只读工具直接执行；其余工具：先追加 intent，再带幂等键 call["id"] 执行，最后追加 outcome。
    """
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    """第 3 课的 run_agent，改两处：续跑时 reconcile(state, ledger_path(path))；执行工具走 execute_with_ledger。

    path 上有检查点就续跑，没有就从头开始；每一轮在存档点 A 和存档点 B 各 save_checkpoint(state, path) 一次。
    """
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")
# %% recovery_action
def recovery_action(cp, records, lookup):
    """返回 "continue"、"rerun"、"reuse"、"record"、"execute" 或 "is_error"（见上文）；不要修改 cp 和 records。"""
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")
# %% reconcile
def reconcile(cp, ledger):
    """给 cp 的悬空调用补上恰好一条配对的 tool_result，返回 cp；ledger 是台账的路径。

    按 recovery_action 的判断：rerun / reuse / record / execute / is_error（见上表）。
    保留最后那条 assistant 消息；最后把 pendingToolUse 设为 None。
    """
    # YOUR CODE HERE
    raise NotImplementedError("请在这里写你的代码")
# %% root_cause
# 例如：ROOT_CAUSE_ANSWER = "A"
# YOUR CODE HERE
raise NotImplementedError("请在这里写你的代码")
