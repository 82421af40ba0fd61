"""The lesson's incident (test_incident_fix, 3 points): only read-only tools are run again.

The grader answers execute_tool and runs the mail server, so a send that bypasses
execute_tool (smtplib, course.tools.send_email) is counted too.
"""
import pytest

from .reconciled import check_not_run, check_rerun, reconciled

GRADE = "test_incident_fix"


@pytest.mark.grade(GRADE, 1)
def test_send_email_is_not_sent_again(grading):
    """恢复时 send_email 不会再执行（邮件服务器收不到第二封），而是得到 is_error 结果"""
    check_not_run(reconciled(grading.outcome("reconcile_send_email"), 0))


@pytest.mark.grade(GRADE, 1)
def test_unheard_of_tools_are_not_run(grading):
    """课程没提过的高影响工具（不在只读之列）也不会再执行，同样得到 is_error 结果"""
    outcome = grading.outcome("reconcile_unheard_of")
    for index in range(len(outcome.steps)):
        check_not_run(reconciled(outcome, index))


@pytest.mark.grade(GRADE, 1)
def test_read_file_still_runs(grading):
    """修好之后，只读的 read_file 仍然通过 execute_tool 重新执行"""
    check_rerun(reconciled(grading.outcome("reconcile_read_only"), 0))
