"""The lesson's incident (test_incident_fix, 3 points): only read-only tools reach execute_tool.

The grader answers execute_tool and runs the mail server, so a send that bypasses
execute_tool (smtplib, course.tools.send_email) is counted too.
"""
import pytest

from .helpers import expect, short, text_of
from .reconciled import is_read_only, reconciled, the_result

GRADE = "test_incident_fix"


@pytest.mark.grade(GRADE, 1)
def test_send_email_is_not_sent_again(grading):
    """恢复时 send_email 不会再到达 execute_tool，邮件服务器也收不到第二封"""
    result = reconciled(grading.outcome("reconcile_send_email"), 0)
    names = [c["name"] for c in result.calls]
    expect("send_email" not in names, "send_email 在恢复时被重新执行了一次：reconcile 把它交给了 execute_tool，"
                                      "崩溃前已经发出的邮件又发了一封")
    expect(result.emails == 0, f"send_email 在恢复时被重新执行了一次：邮件服务器又收到了 {result.emails} 封邮件")
    expect(not names, f"悬空的是 send_email，reconcile 却通过 execute_tool 执行了 {short(names)}")


@pytest.mark.grade(GRADE, 1)
def test_unheard_of_tools_are_not_run(grading):
    """课程没提过的高影响工具（不在只读之列）也不会到达 execute_tool"""
    outcome = grading.outcome("reconcile_unheard_of")
    for index in range(len(outcome.steps)):
        result = reconciled(outcome, index)
        tool = result.pending["name"]
        reached = [c["name"] for c in result.calls if not is_read_only(c["name"])]
        expect(tool not in reached, f"{tool} 是课程没提过的工具，reconcile 却把它交给了 execute_tool 重新执行。"
                                    "只把确定是只读的工具重新执行，其余一律补 is_error（只拦 send_email 的黑名单拦不住新工具）")
        expect(not reached, f"悬空的是 {tool}，reconcile 却执行了 {short(reached)}")
        expect(result.emails == 0, "对账时邮件服务器收到了邮件")


@pytest.mark.grade(GRADE, 1)
def test_both_paths_paired(grading):
    """read_file 仍然重新执行，send_email 不执行，两条路径都补上配对的 tool_result"""
    read = reconciled(grading.outcome("reconcile_read_only"), 0)
    expect([c["name"] for c in read.calls] == ["read_file"],
           "修好的 reconcile 对只读的 read_file 仍然要通过 execute_tool 重新执行（只是不再重新执行高影响工具）")
    expect(read.calls[0]["output"] in text_of(the_result(read).get("content")),
           "read_file 的 tool_result 内容应该是 execute_tool 返回的真实输出")
    send = reconciled(grading.outcome("reconcile_send_email"), 0)
    expect(not send.calls and send.emails == 0, "send_email 在恢复时被重新执行了一次")
    the_result(send)
