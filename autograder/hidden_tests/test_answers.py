"""The multiple-choice answers (test_quiz_failure, test_quiz_delete and test_root_cause, 1 point each)."""
import pytest

from .helpers import expect, problem, short

# The step of the "answers" scenario that reads each name, and what a wrong answer misunderstood.
STEPS = {"QUIZ_DELETE_ANSWER": 0, "ROOT_CAUSE_ANSWER": 1, "QUIZ_FAILURE_ANSWER": 2}
MISTAKES = {
    "QUIZ_FAILURE_ANSWER": "两种情况不一样：读文件失败时，错误信息本身就是 tool_result，对话是完整的，照常交给模型；"
                           "悬空调用连结果都没有，我们也不知道它执行了没有，对话发不出去，恢复代码要先补上配对的结果块",
    "QUIZ_DELETE_ANSWER": "删掉那条 assistant 消息并不是最干净的修法：模型会忘掉自己已经做出的决定，"
                          "如果那次调用其实已经执行了，删除也撤销不了它的副作用，只是让模型和日志都不再知道它",
    "ROOT_CAUSE_ANSWER": "根因选得不对：事故版 reconcile 对悬空调用一律用 execute_tool 重新执行，"
                         "没有区分只读工具和 send_email 这样的高影响工具，崩溃前已经发出的邮件就又发了一封",
}


def check(grading, name):
    outcome = grading.outcome("answers")
    index = STEPS[name]
    message = problem(outcome, index, name)
    expect(message is None, message)
    value = outcome.steps[index]["value"]
    expect(isinstance(value, str), f'{name} 应该是一个字母的字符串，例如 "A"；你的是 {short(value)}')
    expect(value.strip().upper() == grading.answer(name), MISTAKES[name])


@pytest.mark.grade("test_quiz_failure", 1)
def test_quiz_failure(grading):
    """小测：悬空调用和普通的工具失败有什么不同"""
    check(grading, "QUIZ_FAILURE_ANSWER")


@pytest.mark.grade("test_quiz_delete", 1)
def test_quiz_delete(grading):
    """小测：删掉悬空的 assistant 消息是不是最干净的修法"""
    check(grading, "QUIZ_DELETE_ANSWER")


@pytest.mark.grade("test_root_cause", 1)
def test_root_cause(grading):
    """事故的根因"""
    check(grading, "ROOT_CAUSE_ANSWER")
