"""execute_with_ledger (test_execute_with_ledger, 3 points): intent before, outcome after, the call's id
as the key; effects counted at the grader's services.

One call of each kind (read-only, send_email, one of the lesson's other tools with effects, a
tool no list names, the same email asked for again by another call, and an email the server
already holds under the call's key, which it answers "already delivered"), each in a process of
its own, on one ledger that already holds other calls' records, one of them the same email; one
effect asked for twice in a row by two calls in one process (both run, each with its own key); and
one call with an effect whose ledger does not exist yet (its append creates it: the name too must
be durable before the tool runs).
The grader runs every tool and the mail server, and reads the ledger at the moment each tool
runs; strace records how the ledger was written, so a power cut at that moment is judged too.
"""
from pathlib import Path

import pytest

from autograder.contract import failed as contract_failed
from course.ledger import delivered_text
from .helpers import (emails_in_step, expect, expect_raised_as, fail, keyed, of, outcome_written_at, problem,
                      records_in, reference_raises, same, short, untyped_said)
from .ledger_crashes import FOLDER_ADVICE, first_loss, moments

GRADE = "test_execute_with_ledger"


def each_call(grading):
    """(index, call, output, the step's tool calls) for every call; fail if one did not return."""
    outcome = grading.outcome("execute")
    for index, call in enumerate(outcome.scenario.meta["calls"]):
        message = problem(outcome, index, f"execute_with_ledger（{call['name']}）")
        expect(message is None, message)
        yield outcome, index, call, outcome.steps[index]["value"], outcome.student_tool_calls(index)


def is_read_only(grading, call) -> bool:
    return call["name"] in grading.reference.READ_ONLY_TOOLS


def known(outcome, call) -> bool:
    """Whether the server held this call's email before the step (sent with its id as the key)."""
    return call["id"] == outcome.scenario.meta.get("known")


def looked_up(outcome, call, value, ran) -> bool:
    """A call the server knew, answered from lookup_effect (what it says of the email) rather than run again."""
    return known(outcome, call) and not ran and value == delivered_text(call)


@pytest.mark.grade(GRADE, 1)
def test_each_call_runs_once(grading):
    """每个调用恰好执行一次、返回工具的输出；只读工具直接执行，不记台账；参数一样的另一次调用也照样执行"""
    for outcome, index, call, value, ran in each_call(grading):
        names = [c["name"] for c in ran]
        if looked_up(outcome, call, value, ran):
            continue
        expect(names == [call["name"]], f"execute_with_ledger（{call['name']}）应该通过 execute_tool 把它恰好执行一次，"
                                        f"实际执行的是 {short(names) if names else '什么也没有'}"
                                        + ("：参数相同的前一次调用（台账里记着的，或者同一个进程里刚执行过的）是另一次调用（id 不同），"
                                           "它的结果不能拿来顶替这一次"
                                           if not names and not is_read_only(grading, call) else ""))
        expect(same(ran[0]["input"], call["input"]), f"执行 {call['name']} 时要用这次调用的 input")
        expect(value == ran[0]["output"], f"execute_with_ledger（{call['name']}）要把 execute_tool 返回的文本原样返回，"
                                          f"你的返回了 {short(value)}")
        if is_read_only(grading, call):
            ledger = outcome.scenario.meta["ledgers"][index]
            then = records_in(ran[0]["ledgers"].get(ledger))[0]
            expect(not of(then, call["id"], "intent"), f"只读的 {call['name']} 不需要记台账：重做无害，恢复时直接再执行一次")


@pytest.mark.grade(GRADE, 1)
def test_intent_before_outcome_after(grading):
    """有副作用的调用：执行那一刻台账里已经有落了盘的 intent，返回时已经追加了落盘的 outcome（output 就是工具的输出）；台账还不存在时也一样"""
    for outcome, index, call, value, ran in each_call(grading):
        if looked_up(outcome, call, value, ran):
            check_looked_up(outcome, index, call, value)
        if is_read_only(grading, call) or not ran:
            continue
        ledger = outcome.scenario.meta["ledgers"][index]
        then, error = records_in(ran[0]["ledgers"].get(ledger))
        expect(error is None, f"执行 {call['name']} 那一刻，台账读不出来（{short(str(error), 80)}）")
        intents = of(then, call["id"], "intent")
        untyped = untyped_said(then, call["id"], "intent")
        expect(intents, f"执行 {call['name']} 的那一刻，台账里还没有这次调用（id {call['id']}）的 intent{untyped}："
                        + ("intent 记录要带 \"type\": \"intent\"，" if untyped else "意图要在执行之前写好，")
                        + "否则崩溃在执行途中时，恢复代码会以为它从没开始")
        expect(same(intents[0].get("name"), call["name"]) and same(intents[0].get("input"), call["input"]),
               f"intent 记录要写下这次调用的 name 和 input（恢复时靠它们知道做的是什么），你的是 {short(intents[0])}")
        expect(not of(then, call["id"], "outcome"), f"执行 {call['name']} 之前台账里就有了它的 outcome：结果要在执行之后才记")
        found = moments(outcome, ledger, index)
        lost = first_loss(found)
        expect(not lost, f"模拟断电：execute_with_ledger（{call['name']}）{lost}")
        for kind, when, contents in found:
            if kind in ("start", "call"):
                continue
            for content in contents:
                records, _ = records_in(content)
                wanted = "intent" if kind == "tool" else "outcome"
                found = of(records, call["id"], wanted)
                untyped = untyped_said(records, call["id"], "outcome") if not found and wanted == "outcome" else ""
                if untyped:
                    fail(f"execute_with_ledger（{call['name']}）返回时，台账里没有这次调用的 outcome{untyped}："
                         "outcome 记录要带 \"type\": \"outcome\"")
                if not found and wanted == "outcome" and outcome_written_at(outcome, index, ledger, call["id"]) is None:
                    failed = contract_failed(ran[0]["output"])
                    fail(f"execute_with_ledger（{call['name']}）返回时，台账里没有这次调用的 outcome：它根本没有写"
                         + (f"。这次 execute_tool 返回的是错误（{short(ran[0]['output'], 40)}）——出错也是确定的结果，"
                            "照样要记进 outcome：不记，下次恢复只看到 intent，会当成结果未知或从没到达；"
                            "要不要重试，由模型读了这段错误再决定" if failed else
                            "。这次服务器回答这封信「之前已经送达」（它认出了幂等键，之前那次运行发出过它，台账却没留下）"
                            "——这也是确定的结果，照样要记进 outcome（output 就是这段回答）：不记，台账里它只有 intent，"
                            "下次恢复只能当成结果未知去问服务器" if known(outcome, call) else
                            "。这次 execute_tool 返回的是空字符串——空的输出也是确定的结果，照样要记进 outcome（output 是 \"\"）"
                            if ran[0]["output"] == "" else "。执行之后要追加一条 outcome，output 就是工具的输出"))
                expect(found, f"模拟断电：{call['name']} 的台账记录，{when}断电，台账里没有这次调用的 {wanted}："
                              + (f"这次调用前台账还不存在，断电后台账文件不见了。{FOLDER_ADVICE}" if content is None else
                                 "每条记录返回之前都要落盘（append_ledger 里 flush + os.fsync）"))
                if kind == "end":
                    recorded, output = found[0].get("output"), ran[0]["output"]
                    expect(recorded == output, f"{call['name']} 的 outcome 里 output 应该是 execute_tool 返回的文本"
                           + (f"，要整段记下：它有 {len(output)} 个字符，你只记了前 {len(recorded)} 个（恢复时复用的就是"
                              "这段 output，截短了，续跑后模型拿到的就是不完整的结果）"
                              if isinstance(recorded, str) and output.startswith(recorded) else
                              f"，可你的 outcome 记录里没有 \"output\" 这个字段（它是 {short(found[0], 100)}）：恢复代码按 "
                              "output 取这次调用的结果，换了字段名，取到的就是 None" if "output" not in found[0] else
                              f"，你记的是 {short(recorded)}"))
        old, _ = records_in(outcome.scenario.files.get(ledger))
        after, _ = records_in(outcome.files_after.get(ledger))
        expect(after is not None and all(r in after for r in old), "执行之后，台账里原来的记录不见了：台账只追加")
    check_blocked(grading)


def check_looked_up(outcome, index: int, call, value):
    """A known call answered from lookup_effect: its intent and its outcome (that answer) are in the ledger at the
    end, as if the tool had run."""
    ledger = outcome.scenario.meta["ledgers"][index]
    for kind, when, contents in moments(outcome, ledger, index):
        if kind != "end":
            continue
        for content in contents:
            records, _ = records_in(content)
            outcomes = of(records, call["id"], "outcome")
            expect(of(records, call["id"], "intent") and outcomes and outcomes[-1].get("output") == value,
                   f"模拟断电：{when}断电，台账里没有这次 send_email（服务器按键查到了它）的 intent 和 outcome："
                   "查到的结果也要像执行的结果一样记进 outcome、落盘，output 就是查到的文本")


def check_blocked(grading):
    """The intent cannot be appended (a folder at the ledger's path): the error reaches the caller as the reference's
    does, and the tool never runs."""
    outcome = grading.outcome("execute")
    blocked = outcome.scenario.meta["blocked"]
    call, index = blocked["call"], len(outcome.scenario.meta["calls"])
    wanted = reference_raises(grading, "execute_with_ledger", Path.mkdir, call)
    where = f"（{call['name']}，台账的路径上是一个文件夹，intent 追加不进去）"
    ran = [c["name"] for c in outcome.student_tool_calls(index)]
    expect(not ran and not emails_in_step(outcome, index),
           f"intent 没能写进台账，execute_with_ledger 却照样执行了 {short(ran) if ran else call['name']}{where}："
           "意图必须在执行之前落盘——没记下就执行，崩溃后台账里没有它，恢复代码以为它从没开始，会再做一次。"
           "追加 intent 失败时让异常抛出去，不要执行")
    if wanted is not None:
        expect_raised_as(outcome, index, wanted, "execute_with_ledger",
                         "intent 没能写进台账，execute_with_ledger 应该让 {error} 抛出去，调用它的 run_agent 才知道出了事", where)


def _key_fault(outcome, index: int, key) -> str:
    """What is wrong with a key that is not the call's id, as far as this scenario shows."""
    if not isinstance(key, str) or not key:
        return ""
    shared = [other["name"] for step in range(len(outcome.steps)) if step != index
              for other in outcome.student_tool_calls(step) if other.get("key") == key]
    if shared:
        return (f"：另一次调用（id 不同，{shared[0]}）也带着这把键——参数一样的两次调用，服务器会把后一次当成前一次的重试，"
                "它就不会生效。键要在同一次调用的重试之间不变、在不同调用之间不同：tool_use id 正好如此")
    return ("：键要在同一次调用的重试之间不变、在不同调用之间不同，对账时还要查得到（lookup_effect(name, id) 按 id 查）："
            "tool_use id 三样都满足，它就存在检查点的 pendingToolUse 里")


@pytest.mark.grade(GRADE, 1)
def test_key_is_the_call_id(grading):
    """有副作用的调用带着幂等键执行，键就是这次调用的 id；每封信在服务器上恰好投递一次，Message-ID 来自这个键"""
    for outcome, index, call, value, ran in each_call(grading):
        if is_read_only(grading, call) or not ran:
            continue
        key = ran[0].get("key")
        expect(key == call["id"], f"执行 {call['name']} 时要带上幂等键 idempotency_key=call[\"id\"]（{call['id']}），"
                                  f"你传的是 {short(key)}" + _key_fault(outcome, index, key))
        if call["name"] != "send_email":
            continue
        emails = emails_in_step(outcome, index)
        if known(outcome, call):
            expect(not emails, f"send_email（id {call['id']}）的信服务器之前就收过（同一把键），这一步它却又收到了 "
                               f"{len(emails)} 封：带着这次调用的 id 作键，服务器只会回答「之前已经送达」")
        else:
            expect(emails == [keyed(call["id"])],
                   f"send_email（id {call['id']}）之后邮件服务器收到 {len(emails)} 封这一步发出的信，应该正好 1 封、"
                   f"Message-ID 是 {keyed(call['id'])}；另一次参数相同的调用也要发出它自己的那一封")
