"""满分：学生在 run_agent 后面加了一个单元格，让实验跑得快一点：time.sleep 换成什么也不做的函数。答案本身照课文写。"""
# %% extra after run_agent
import time
time.sleep = lambda seconds: None
