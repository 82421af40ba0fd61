"""作弊：recovery_action 单元格一运行就永远睡下去（定义阶段卡死）。对照：full_reference。"""
# %% recovery_action
import time

while True:
    time.sleep(0.05)


def recovery_action(cp):
    return "continue"
