"""recovery_action (test_recovery_action, 3 points): a function that only decides.

Besides the answer, each check looks at what the call did: a recovery_action that
runs a tool, sends an email, writes a file or changes its argument loses that
check's point.
"""
import copy

import pytest

from autograder.contract import json_size, same, untouched
from autograder.protocol import StepStatus

from .helpers import expect, fail, files_written, problem, short
from .shrink import counterexample, smallest_failing

GRADE = "test_recovery_action"
WHY = {"continue": "没有悬空调用（pendingToolUse 是 None），直接拿 messages 继续调用模型",
       "rerun": "悬空的是只读工具，重新执行没有副作用",
       "is_error": "悬空的不是只读工具（高影响，或者不认识），不能重新执行，只能补 is_error"}


def wrong_answer(outcome, index: int, checkpoint: dict, wanted: str) -> bool:
    step = outcome.steps[index]
    return step["status"] != StepStatus.RETURNED or not same(step.get("value"), wanted) or not untouched(
        checkpoint, (step.get("args_after") or [None])[0])


def check(grading, wanted):
    """Every case whose reference answer is `wanted`; what any call of the shared process did counts for each."""
    outcome = grading.outcome("recovery_action")
    cases = outcome.scenario.meta["cases"]
    # strace cannot tell the calls of one process apart: a file any of them wrote counts against every answer
    written = files_written(outcome, 0)
    for index in sorted(range(len(cases)), key=lambda i: json_size(cases[i])):  # the smallest failing case first
        checkpoint = cases[index]
        action = grading.reference.recovery_action(copy.deepcopy(checkpoint))  # the oracle
        if action != wanted:
            continue
        pending = checkpoint["pendingToolUse"]
        what = f"recovery_action（pendingToolUse 为 {pending['name'] if pending else 'None'}）"
        message = problem(outcome, index, what)
        expect(message is None, message)
        ran = [c["name"] for c in outcome.student_tool_calls(index)]  # what it did is said before what it answered
        expect(not ran, f"{what} 只做判断，却通过 execute_tool 执行了 {short(ran)}：要不要重新执行，由调用它的代码决定")
        if wrong_answer(outcome, index, checkpoint, wanted):
            smallest = smallest_failing(grading, f"recovery_{wanted}", "recovery_action", checkpoint,
                                        lambda shrunk, i, case: wrong_answer(shrunk, i, case, wanted))
            example = counterexample(smallest, grading.seed)
            value = outcome.steps[index]["value"]
            turns, limit = checkpoint.get("turns"), grading.reference.MAX_TURNS
            spent = (f"。这份检查点的 turns 是 {turns}，已经用满了 MAX_TURNS（{limit}）——用满了也照样按 pendingToolUse 决定："
                     "停不停是 run_agent 循环的事，recovery_action 只看悬空调用（用满时 run_agent 也先对账、存档再停下）"
                     if isinstance(turns, int) and turns >= limit and action != "continue" else "")
            expect(same(value, action), f"{what} 应该返回 {action!r}：{WHY[action]}。你的函数返回了 {short(value)}{spent}"
                                        + example)
            fail(f"{what} 只做判断，不应该修改传进来的检查点" + example)
        expect(not written, f"recovery_action 只做判断，却写了文件 {short(written)}（例如存了检查点）：它不该有任何副作用")
    emails = outcome.emails_during_steps()
    expect(wanted != "is_error" or not emails, f"recovery_action 只做判断，却发出了 {emails} 封邮件")


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
