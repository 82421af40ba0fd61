"""The effects table (test_effects, 2 points) and the multiple-choice answers (test_quiz_exactly_once,
test_quiz_key, test_root_cause, 1 point each), read as values in one process.

The expected classes are the reference's own table, read at judging time."""
import pytest

from .helpers import expect, expect_letter, problem, short

STEPS = {"EFFECTS": 0, "QUIZ_EXACTLY_ONCE_ANSWER": 1, "QUIZ_KEY_ANSWER": 2, "ROOT_CAUSE_ANSWER": 3}
KINDS = {"read_only": "只读（不改变外部世界，重做无害）", "idempotent": "幂等写（同样的参数做两次，和做一次结果一样）",
         "non_idempotent": "非幂等（每做一次就多一份效果）"}
MISTAKES = {
    "QUIZ_EXACTLY_ONCE_ANSWER": "「让副作用发生」和「把它发生了记下来」是两个动作，崩溃可能落在两者之间：系统只能保证至少执行一次，"
                                "恰好一次的效果要靠每一步自己幂等",
    "QUIZ_KEY_ANSWER": "幂等键要让同一次调用的每次尝试都相同、不同的调用一定不同：检查点里记下的 tool_use id 正好如此；"
                       "每次新生成的键认不出重试，按工具名和参数拼出的键会把两次相同的调用当成一次",
    "ROOT_CAUSE_ANSWER": "根因选得不对：台账里只有 intent 时，事故版对账把它当成「没做完」，不带键地再执行了一次，"
                         "而信其实已经送达；该先按幂等键问服务器",
}


def value_of(grading, name):
    outcome = grading.outcome("answers")
    index = STEPS[name]
    message = problem(outcome, index, name)
    expect(message is None, message)
    return outcome.steps[index]["value"]


def check_effects(grading, kinds):
    table = value_of(grading, "EFFECTS")
    expect(isinstance(table, dict), f"EFFECTS 应该是一个 dict（工具名 → 类别），你的是 {short(table)}")
    reference = grading.reference.EFFECTS
    for tool in sorted(name for name, kind in reference.items() if kind in kinds):
        got = table.get(tool)
        expect(tool in table, f"EFFECTS 里没有 {tool}")
        if got != reference[tool]:
            yours = KINDS.get(got, f"{short(got)}（不是三个类别之一）")
            expect(False, f"{tool} 被你归为 {got!r}：{yours}。想一想：{tool} 同样的参数做两次，外部世界和做一次时一样吗？"
                          "它改变外部世界吗？")


@pytest.mark.grade("test_effects", 1)
def test_read_only_and_non_idempotent(grading):
    """只读的工具和非幂等的工具归类正确"""
    check_effects(grading, {"read_only", "non_idempotent"})


@pytest.mark.grade("test_effects", 1)
def test_idempotent_writes(grading):
    """幂等写归类正确：有副作用，但重做一次不会多出一份效果"""
    check_effects(grading, {"idempotent"})


def check(grading, name):
    expect_letter(value_of(grading, name), name, grading.answer(name), MISTAKES[name])


@pytest.mark.grade("test_quiz_exactly_once", 1)
def test_quiz_exactly_once(grading):
    """小测：持久执行系统为什么给「至少一次」"""
    check(grading, "QUIZ_EXACTLY_ONCE_ANSWER")


@pytest.mark.grade("test_quiz_key", 1)
def test_quiz_key(grading):
    """小测：哪一个能当幂等键"""
    check(grading, "QUIZ_KEY_ANSWER")


@pytest.mark.grade("test_root_cause", 1)
def test_root_cause(grading):
    """事故的根因"""
    check(grading, "ROOT_CAUSE_ANSWER")
