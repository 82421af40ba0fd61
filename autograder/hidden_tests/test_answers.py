"""The two multiple-choice answers (test_quiz_delete and test_root_cause, 1 point each)."""
import pytest

from .helpers import expect, problem, short

MISTAKES = {
    "QUIZ_DELETE_ANSWER": "删掉那条 assistant 消息并不是最干净的修法：模型会忘掉自己已经做出的决定，"
                          "如果那次调用其实已经执行了，删除也撤销不了它的副作用，只是让模型和日志都不再知道它",
    "ROOT_CAUSE_ANSWER": "根因选得不对：事故版 reconcile 对悬空调用一律用 execute_tool 重新执行，"
                         "没有区分只读工具和 send_email 这样的高影响工具，崩溃前已经发出的邮件就又发了一封",
}


def check(grading, index, name):
    outcome = grading.outcome("answers")
    message = problem(outcome, index, name)
    expect(message is None, message)
    value = outcome.steps[index]["value"]
    expect(isinstance(value, str), f'{name} 应该是一个字母的字符串，例如 "A"；你的是 {short(value)}')
    expect(value.strip().upper() == grading.answer(name), MISTAKES[name])


@pytest.mark.grade("test_quiz_delete", 1)
def test_quiz_delete(grading):
    """小测：删掉悬空的 assistant 消息是不是最干净的修法"""
    check(grading, 0, "QUIZ_DELETE_ANSWER")


@pytest.mark.grade("test_root_cause", 1)
def test_root_cause(grading):
    """事故的根因"""
    check(grading, 1, "ROOT_CAUSE_ANSWER")
