"""recovery_action (test_recovery_action, 3 points)."""
import pytest

from .helpers import expect, problem, same, short

GRADE = "test_recovery_action"
WHY = {"continue": "没有悬空调用（pendingToolUse 是 None），直接拿 messages 继续调用模型",
       "rerun": "悬空的是只读工具，重新执行没有副作用",
       "is_error": "悬空的不是只读工具（高影响，或者不认识），不能重新执行，只能补 is_error"}


def check(grading, wanted):
    outcome = grading.outcome("recovery_action")
    for index, (checkpoint, action) in enumerate(outcome.scenario.meta["cases"]):
        if action != wanted:
            continue
        pending = checkpoint["pendingToolUse"]
        what = f"recovery_action（pendingToolUse 为 {pending['name'] if pending else 'None'}）"
        message = problem(outcome, index, what)
        expect(message is None, message)
        value = outcome.steps[index]["value"]
        expect(same(value, action), f"{what} 应该返回 {action!r}：{WHY[action]}。你的函数返回了 {short(value)}")
        expect(same(outcome.steps[index].get("args_after", [None])[0], checkpoint),
               "recovery_action 只做判断，不应该修改传进来的检查点")


@pytest.mark.grade(GRADE, 1)
def test_continue(grading):
    """没有悬空调用时返回 "continue\""""
    check(grading, "continue")


@pytest.mark.grade(GRADE, 1)
def test_rerun(grading):
    """悬空的是只读工具时返回 "rerun\""""
    check(grading, "rerun")


@pytest.mark.grade(GRADE, 1)
def test_is_error(grading):
    """悬空的是 send_email 或任何不在只读之列的工具时返回 "is_error\""""
    check(grading, "is_error")
