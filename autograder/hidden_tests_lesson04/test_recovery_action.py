"""recovery_action (test_recovery_action, 4 points): a function that only decides, over generated cases.

Each case is a generated checkpoint (lesson 3's generator), the ledger's records (the dangling
call's own among other calls', one of which may have the same name and input) and the server's
state (it has the keyed email, it has none, it cannot be reached), passed as a `lookup` that
answers accordingly. The expected answer is the reference's on the same case; the cases share
one process in shuffled order. One call comes back five times among them, its records grown each time (a
kernel where run_agent is run again after an interrupt), the server saying it has not got the email before it has it:
its answer is that time's, not the last one's. What a call did besides answering (a tool run, an email, a file
written, an argument changed) also counts against it; a line of text appended to a log of its own does not.
"""
import copy
import os

import pytest

from course.ledger import LEDGER_NAME

from .helpers import (case_size, describe_case, emails_in_step, expect, expected_action, fail, files_written,
                      holds_state, problem, reference_asks, same, short)

GRADE = "test_recovery_action"
WHY = {"continue": "没有悬空调用，直接继续调用模型",
       "rerun": "悬空的是只读工具，重新执行没有副作用",
       "reuse": "台账里已经有这次调用的 outcome（output 是一段错误也一样：那是确定的结果，要不要重试由模型决定）："
                "直接复用，不用执行也不用问服务器",
       "record": "台账里只有 intent，服务器按幂等键查到了这次调用：它已经生效，把服务器的回答记下来"
                 "（查到的结果文本是空字符串也一样：lookup 没查到时返回的是 None）",
       "execute": "这次调用从没到达服务器（没有 intent，或者有 intent 而服务器说没收到过）：带同一把键执行一次",
       "is_error": "台账里只有 intent，服务器又答不上来（连不上，或不支持按键查询）：结果真的未知，只能补 is_error"}

# the course's own lookup_effect asked instead of the lookup passed in (the grader sees which one was asked)
GLOBAL_LOOKUP = ("：你的函数问的是课程的 lookup_effect（评分器看到它被调用了），不是传进来的参数 lookup——要用 recovery_action(cp, records, lookup) "
                 "的第三个参数去问：reconcile 传给它 lookup_effect，练习一的六种现场传的是模拟服务器状态的函数，"
                 "写死 lookup_effect 就只问得到眼前这台真的服务器")


HARMLESS_OPS = ("open", "write", "seek", "close", "fsync", "fdatasync")


def side_effects(outcome) -> list:
    """The files the calls wrote that the lesson forbids a function that only decides to write: the ledger, a
    checkpoint, or anything holding a checkpoint's or a record's data, or written in a way whose bytes cannot be
    seen (rewritten, renamed, removed, mapped). Lines of text only appended to a log of its own are no side effect,
    as a print is not, nor is a JSON log entry that quotes the records it looked at (a value inside it; probe 14a:
    0/4 before). strace cannot tell the calls of one process apart: what one wrote counts for all."""
    began = outcome.started_at[0] if outcome.started_at else None
    forbidden = []
    for name in files_written(outcome, 0):
        events = [e for e in outcome.fs_events if isinstance(e, dict) and e.get("step") == 0
                  and (began is None or e["at"] > began)
                  and os.path.join(outcome.workdir, name) in (e.get("path"), e.get("dst"))]
        opens = [e for e in events if e["op"] == "open"]
        writes = [e for e in events if e["op"] == "write"]
        appended_text = (opens and all(e["op"] in HARMLESS_OPS for e in events)
                         and all("O_APPEND" in str(e.get("flags")) and "O_RDWR" not in str(e.get("flags"))
                                 and "O_TRUNC" not in str(e.get("flags")) for e in opens)
                         and all(isinstance(e.get("data"), bytes) for e in writes)
                         and not holds_state(b"".join(e["data"] for e in writes), nested=False))
        if not appended_text or os.path.basename(name) in (LEDGER_NAME, "checkpoint.json"):
            forbidden.append(name)
    return forbidden


def kept_answer(outcome, cases: list, expected: list, index: int) -> int | None:
    """The case the same call (the same pending id) met the time before case `index` in the same process, if case
    `index` got the answer it got then while every case met once that expects this time's answer gets it: what a
    recovery_action that remembers its decisions answers however its input has changed (one that never asks the
    server, say, is wrong on the cases met once too)."""
    def pending_id(n):
        return (cases[n]["checkpoint"]["pendingToolUse"] or {}).get("id")

    before = [n for n in range(index) if pending_id(index) and pending_id(n) == pending_id(index)]
    ids = [pending_id(n) for n in range(len(cases))]
    alike = [n for n in range(len(cases)) if ids.count(ids[n]) == 1 and expected[n] == expected[index]]
    if (before and alike and same(outcome.steps[index].get("value"), outcome.steps[before[-1]].get("value"))
            and all(same(outcome.steps[n].get("value"), expected[n]) for n in alike)):
        return before[-1]
    return None


def what_changed(earlier: dict, case: dict) -> str:
    """What differs between two times of one call: its records, the server's answer, or both."""
    changed = [what for what, key in (("台账记录", "records"), ("服务端的回答", "service"))
               if not same(earlier[key], case[key])]
    return "和".join(changed) + ("都" if len(changed) > 1 else "")


def check(grading, wanted: set):
    outcome = grading.outcome("recovery_action")
    cases = outcome.scenario.meta["cases"]
    written = side_effects(outcome)
    # the course's lookup_effect reaches the grader only for send_email (it knows no other service): seen in one case,
    # it is what the function asks in each
    asked_elsewhere = GLOBAL_LOOKUP if any(c["step"] is not None and not c.get("case") for c in outcome.lookups) else ""
    expected = [expected_action(grading.reference, c["checkpoint"], c["records"], c["service"]) for c in cases]
    for index in sorted(range(len(cases)), key=lambda i: case_size(cases[i])):  # the smallest failing case first
        case, action = cases[index], expected[index]
        if action not in wanted:
            continue
        pending = case["checkpoint"]["pendingToolUse"]
        what = f"recovery_action（悬空的是 {pending['name'] if pending else 'None'}）"
        message = problem(outcome, index, what)
        expect(message is None, message)
        step = outcome.steps[index]
        value = step["value"]
        shown = describe_case(case["checkpoint"], case["records"], case["service"], grading.seed)
        earlier = kept_answer(outcome, cases, expected, index) if not same(value, action) else None
        if earlier is not None:
            fail(f"{what} 应该返回 {action!r}：{WHY[action]}。同一个进程里又一次对同一个调用（id {pending['id']}）"
                 f"调用 recovery_action，{what_changed(cases[earlier], case)}已经变了，你的 recovery_action 还给出上一次的判断 "
                 f"{short(value)}：它只做判断，每次都按这一次传进来的 records 和 lookup 的回答判断，不能按调用记住以前的"
                 f"结论（notebook 里中断之后再运行 run_agent，同一个调用就会再恢复一次）{shown}")
        expect(same(value, action),
               f"{what} 应该返回 {action!r}：{WHY[action]}。你的函数返回了 {short(value)}{asked_elsewhere}{shown}")
        expect(same(step.get("args_after", [None, None])[:2], [case["checkpoint"], case["records"]]),
               f"{what} 只做判断，不应该修改传进来的检查点或台账记录{shown}")
        ran = [c["name"] for c in outcome.student_tool_calls(index)]
        expect(not ran, f"{what} 只做判断，却通过 execute_tool 执行了 {short(ran)}：执不执行，由调用它的 reconcile 决定")
        expect(not emails_in_step(outcome, index), f"{what} 只做判断，却发出了邮件")
        asked = [c for c in outcome.lookups if c["step"] == index and c.get("case")]
        asks = reference_asks(grading.reference, case["checkpoint"], case["records"], case["service"])
        expect(not asked or asks,
               f"{what} 只在台账里只有 intent 时才问服务端（lookup）：这里{WHY[action]}，你的函数却问了 {len(asked)} 次{shown}")
        expect(asked or not asks,
               f"{what} 台账里只有 intent 时，要先用悬空调用的 id 问服务端 lookup(name, id)，它答不上来"
               "（抛出 ServiceUnavailable）才返回 'is_error'；"
               + (asked_elsewhere.lstrip("：") if asked_elsewhere else
                  "你的函数没有问就下了结论：哪个工具的服务能按键查询，由传进来的 lookup 回答，不能写死在代码里")
               + shown)
        expect(not written, f"recovery_action 只做判断，却写了文件 {short(written)}（检查点、台账，或者存着它们内容的文件）："
                            "保存检查点、记台账由调用它的 reconcile 和 run_agent 来做，它不该有这样的副作用")


@pytest.mark.grade(GRADE, 1)
def test_nothing_to_decide(grading):
    """没有悬空调用时返回 "continue"，悬空的是只读工具时返回 "rerun"（不看台账）"""
    check(grading, {"continue", "rerun"})


@pytest.mark.grade(GRADE, 1)
def test_outcome_recorded(grading):
    """台账里有这次调用（按 id）的 outcome 时返回 "reuse"，服务器连不上也一样"""
    check(grading, {"reuse"})


@pytest.mark.grade(GRADE, 1)
def test_service_answers(grading):
    """只有 intent 时按幂等键问服务器：查到了返回 "record"，没查到返回 "execute"；连 intent 都没有返回 "execute\""""
    check(grading, {"record", "execute"})


@pytest.mark.grade(GRADE, 1)
def test_unknown_only_when_unanswerable(grading):
    """只有 intent、服务器又答不上来（ServiceUnavailable）时，才返回 "is_error\""""
    check(grading, {"is_error"})
