"""reconcile (test_reconcile, 5 points): the contract, on every path."""
import pytest

from course.checks import unknown_wording_problem

from autograder.scenario_run import READ_ONLY_TOOL_NAMES

from .helpers import as_json, checkpoints_written, expect, fail, output_said, same, short, text_of
from .reconciled import check_rerun, check_same_as_reference, expected, reconciled, the_result

GRADE = "test_reconcile"
SCENARIOS = ("reconcile_read_only", "reconcile_send_email", "reconcile_unheard_of")


def every_call(grading):
    for name in SCENARIOS:
        outcome = grading.outcome(name)
        for index in range(len(outcome.steps)):
            yield reconciled(outcome, index)


def read_only_calls(grading, which):
    """The read-only calls of the kinds `which` takes (a tool's name, or "failing_rerun": one whose rerun fails)."""
    outcome = grading.outcome("reconcile_read_only")
    for index, kind in enumerate(outcome.scenario.meta["kinds"]):
        if which(kind):
            yield reconciled(outcome, index)


def rerun_property(grading, result):
    """A call the reference runs again went through execute_tool once, and its output is the result."""
    if not expected(grading.reference, result.checkpoint, result.calls)[1]:  # the reference runs it again
        check_rerun(result)


def is_error_property(grading, result):
    """A call that is not run again reaches no tool with an effect and gets is_error: True (a boolean) with words;
    a rerun that failed gets is_error too; else no is_error."""
    state, free = expected(grading.reference, result.checkpoint, result.calls)
    block = result.result_block()
    flag = block.get("is_error")
    written = as_json(flag) if "is_error" in block else None
    if free:
        effects = [c["name"] for c in result.calls if c["name"] not in READ_ONLY_TOOL_NAMES]
        expect(not effects, f"悬空的 {result.tool} 不在只读工具之列，不能重新执行，你的 reconcile 却通过 execute_tool 执行了 "
                            f"{short(effects)}：它崩溃前可能已经生效，再执行一次就可能发生两次，只能标 is_error")
        lookalike = [c["name"] for c in result.calls if isinstance(c["name"], str) and c["name"] != result.tool
                     and c["name"].strip().casefold() == result.tool.strip().casefold()]
        expect(not lookalike, f"悬空的是 {short(result.tool)}，不在只读工具之列，你的 reconcile 却通过 execute_tool 执行了 "
                              f"{short(lookalike[0] if lookalike else '')}：工具名要和 READ_ONLY_TOOLS 里的一字不差，"
                              "只差大小写或空白的是另一个工具，不能当成只读工具重新执行，只能标 is_error")
        expect(not result.emails, f"悬空的是 {result.tool}，你的 reconcile 没有经过 execute_tool，却让邮件服务器收到了 "
                                  f"{result.emails} 封邮件：不能重新执行的调用，换一条路执行也不行")
        expect(flag is True, f"{result.tool} 不在只读工具之列，不能重新执行：它的 tool_result 要带 is_error: True（布尔值）"
                             + (f"，你写的是 {written}" if written else "，你的没有 is_error"))
        expect(text_of(block.get("content")).strip(),
               f"{result.tool} 的 is_error 结果也要在 content 里写一句话，告诉模型结果未知、请先确认现状")
        wrong = unknown_wording_problem(text_of(block.get("content")))
        expect(wrong is None, f"{result.tool} 的结果{wrong}。对账时谁也不知道它成没成，content 要写明结果未知、可能已经生效、"
                              "请先确认现状")
    elif _rerun_failed(result, state):
        expect(flag is True, f"重新执行的 {result.tool} 失败了（execute_tool 返回的文本以「错误」开头）：它的 tool_result "
                             f"要带 is_error: True（布尔值），你的是 {written or '没有 is_error'}")
    else:
        said = output_said(result.calls[0]["output"], flag_only=True) if result.calls else ""
        expect(flag is None or flag is False, f"{result.tool} 重新执行成功了，它的结果不应该标 is_error{said}")


def _rerun_failed(result, state) -> bool:
    """Whether the rerun failed: as the reference flags the same output; for a rerun with another input than the
    dangling call's (the rerun check says so), as that run's own output reads, so the flag is judged once."""
    ran = [c for c in result.calls if c["name"] == result.tool]
    if ran and not same(ran[0]["input"], result.pending["input"]):
        return isinstance(ran[0]["output"], str) and ran[0]["output"].startswith("错误")
    return state["messages"][-1]["content"][0].get("is_error") is True


def fields_property(result):
    """The checkpoint is returned, pendingToolUse cleared, the other fields as they were."""
    expect(isinstance(result.returned, dict), f"reconcile 应该返回检查点（一个 dict），你的函数返回了 {short(result.returned)}")
    expect("pendingToolUse" in result.state and result.state["pendingToolUse"] is None,
           f"对账之后 pendingToolUse 应该设为 None（悬空的是 {result.tool}），"
           + (f"你的是 {short(result.state['pendingToolUse'])}" if "pendingToolUse" in result.state else
              "你的检查点里没有了这个字段：检查点恰好六个字段，pendingToolUse 要留着，值是 None"))
    changed = result.changed_fields()
    expect(not changed, f"对账只补一条 tool_result、清掉 pendingToolUse，其余字段要原样保留，你的 reconcile 改了 "
                        f"{'、'.join(changed)}（悬空的是 {result.tool}）。turns 数的是调用模型的次数，对账没有调用模型；"
                        "tokensUsed 是最近一次响应的用量，对账也没有新的响应")


def holds(check, *args) -> bool:
    try:
        check(*args)
    except pytest.fail.Exception:
        return False
    return True


@pytest.mark.grade(GRADE, 1)
def test_read_file_is_run_again(grading):
    """悬空的 read_file 通过 execute_tool 再执行一次，真实输出成为 tool_result"""
    for result in read_only_calls(grading, lambda kind: kind == "read_file"):
        rerun_property(grading, result)


@pytest.mark.grade(GRADE, 1)
def test_every_read_only_tool_is_run_again(grading):
    """grep、list_dir、web_search 这些只读工具也一样重新执行，重新执行失败的也一样"""
    for result in read_only_calls(grading, lambda kind: kind != "read_file"):
        rerun_property(grading, result)


@pytest.mark.grade(GRADE, 1)
def test_is_error_exactly_when_not_run(grading):
    """不能重新执行的调用不执行，得到 is_error: True（布尔值）和一句说明；重新执行成功的不标 is_error，失败的标 is_error: True"""
    calls = list(every_call(grading))
    # the calls that must not run again first: running one of them is the worse mistake, and is said first
    for result in sorted(calls, key=lambda result: not expected(grading.reference, result.checkpoint, result.calls)[1]):
        is_error_property(grading, result)


@pytest.mark.grade(GRADE, 1)
def test_one_paired_result_on_every_path(grading):
    """每条路径都恰好追加一条 user 消息，tool_use_id 等于悬空调用的 id，assistant 消息保留；其余方面也和参考答案一致（在课程允许的等价之内）"""
    for result in every_call(grading):
        the_result(result)
    for name in SCENARIOS:  # what none of the named properties catches: compared with the reference's
        outcome = grading.outcome(name)
        for index in range(len(outcome.steps)):
            result = reconciled(outcome, index)
            if all(holds(check, *args) for check, *args in ((rerun_property, grading, result),
                                                            (is_error_property, grading, result),
                                                            (fields_property, result))):
                check_same_as_reference(grading, outcome, index)


@pytest.mark.grade(GRADE, 1)
def test_pending_cleared_and_checkpoint_returned(grading):
    """对账之后 pendingToolUse 为 None，version、task、turns、tokensUsed 原样不动，并返回检查点（存档是 run_agent 的事）"""
    for result in every_call(grading):
        fields_property(result)
    for name in SCENARIOS:  # judged by what was written, however and wherever: a checkpoint (a text log is none)
        outcome = grading.outcome(name)
        for index in range(len(outcome.steps)):
            saved = checkpoints_written(outcome, index)
            if saved:
                more = f" 等 {len(saved)} 个文件" if len(saved) > 1 else ""
                fail(f"reconcile 写了 {saved[0]}{more}（存了检查点）：对账只补上结果、返回检查点，存档由 run_agent "
                     "在对账之后做，存到它收到的 path。reconcile 不知道这个 path，自己存就存错了地方"
                     "（默认的 checkpoint.json 可能是另一个任务的检查点，被它盖掉）")
