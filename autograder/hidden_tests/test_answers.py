"""The multiple-choice answers (test_quiz_failure, test_quiz_delete and test_root_cause, 1 point each)."""
import pytest

from .helpers import expect, expect_letter, problem

# The step of the "answers" scenario that reads each name, and what a wrong answer misunderstood.
STEPS = {"QUIZ_DELETE_ANSWER": 0, "ROOT_CAUSE_ANSWER": 1, "QUIZ_FAILURE_ANSWER": 2}
MISTAKES = {
    "QUIZ_FAILURE_ANSWER": "重新执行的只读调用失败了，这次的结果是已知的：把那段错误文本作为 content、带上 is_error: True 补给模型，"
                           "它读到原因就能换个办法；这不是「结果未知」，也不用删消息或反复重试",
    "QUIZ_DELETE_ANSWER": "删掉那条 assistant 消息之后，API 会接受请求：它是无状态的，不记得那个 tool_use，"
                          "模型也就看不到自己决定过发信，多半再发一次；已经发出的那封，删除也撤销不了",
    "ROOT_CAUSE_ANSWER": "根因选得不对：事故版 reconcile 对悬空调用一律用 execute_tool 重新执行，"
                         "没有区分只读工具和 send_email 这样的高影响工具，崩溃前已经发出的邮件就又发了一封",
}


def check(grading, name):
    outcome = grading.outcome("answers")
    index = STEPS[name]
    message = problem(outcome, index, name)
    expect(message is None, message)
    expect_letter(outcome.steps[index]["value"], name, grading.answer(name), MISTAKES[name])


@pytest.mark.grade("test_quiz_failure", 1)
def test_quiz_failure(grading):
    """小测：重新执行的只读调用失败了，对账该补什么"""
    check(grading, "QUIZ_FAILURE_ANSWER")


@pytest.mark.grade("test_quiz_delete", 1)
def test_quiz_delete(grading):
    """小测：删掉 cpC 的最后一条 assistant 消息会怎样"""
    check(grading, "QUIZ_DELETE_ANSWER")


@pytest.mark.grade("test_root_cause", 1)
def test_root_cause(grading):
    """事故的根因"""
    check(grading, "ROOT_CAUSE_ANSWER")
