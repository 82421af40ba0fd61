"""满分：学生在 reconcile 后面加了一个实验单元格，把 course.tools.send_email 换成只打印的假函数，想看看对账会不会发信，
之后没有换回来。答案本身照课文写。"""
# %% extra after reconcile
import course.tools
def _fake_send_email(to, subject, body="", idempotency_key=None):
    print("假装发信给", to)
    return "已发送（假的）"
course.tools.send_email = _fake_send_email
