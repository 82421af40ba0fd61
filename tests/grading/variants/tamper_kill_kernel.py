"""作弊：小测单元格定义完答案就 sys.exit()；recovery_action 遇到 send_email 就用 SIGKILL 杀死自己，
遇到别的高影响工具就去杀父进程。对照：full_reference。"""
# %% quiz_delete
import sys

QUIZ_DELETE_ANSWER = "${lower:QUIZ_DELETE_ANSWER}"
sys.exit(0)
# %% recovery_action
import signal


def recovery_action(cp):
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    if pending["name"] in READ_ONLY_TOOLS:
        return "rerun"
    os.kill(os.getpid() if pending["name"] == "send_email" else os.getppid(), signal.SIGKILL)
    return "is_error"
