"""reconcile (test_reconcile, 5 points): the ledger, the key and the service, judged by their effects.

Every case has its own dangling call, ledger and server state; the mail server is the grader's,
up in one scenario and unreachable in the other, and counts deliveries by Message-ID, so by key.
What the case calls for is the reference's recovery_action on the same input. Judged is what
happened, not how: an outcome recorded is reused; a call the service knows is not sent again
(asking by key, or sending again with the same key, which the server recognises: both deliver
nothing new); a call that never reached the service is sent once, with its key, through the
ledger; only a service that cannot answer leaves the outcome unknown (is_error); trying the same key
again there is harmless, any other execution is not. One call is reconciled twice in one process: the
second time is judged on the ledger and the server as the first left them.
"""
import pytest

from course.checks import unknown_wording_problem
from course.ledger import delivered_text

from autograder.contract import MISSING, UNKNOWN, carries_output, error_flag_right, failed
from autograder.scenario_run import answering_lookup
from autograder.hidden_tests.helpers import checkpoints_written
from autograder.hidden_tests.reconciled import Reconciled, check_rerun, the_result

from .helpers import (emails_in_step, expect, expect_raised_as, expected_action, fail, keyed, of, problem, record_said,
                      records_in, reference_raises, same, short, text_of)
from .ledger_crashes import FOLDER_ADVICE, LOSS_ADVICE, first_loss, moments

GRADE = "test_reconcile"
SCENARIOS = ("reconcile_up", "reconcile_down")
READ_ADVICE = ("课程的 read_ledger 读得了这本台账：断电留下的半行是按字节截断的，可能停在一个中文字符的中间，要先按字节"
               "找到最后一个换行、只截掉它之后的部分（不能按字符数截），再解码完整的行；分行只按 \"\\n\""
               "（json.dumps(ensure_ascii=False) 不转义 U+2028、U+2029、U+0085，str.splitlines() 却在那里断行）")
READ_ERRORS = ("UnicodeDecodeError", "JSONDecodeError")  # what a reader of its own raises on a ledger the course's reads


def cases(grading, wanted: set | None = None):
    """(outcome, index, case, action, result) for the cases whose reference action is in `wanted`, each case as its
    step found it (`as_found`; a damaged ledger is no case of an action: `check_damaged`)."""
    for name in SCENARIOS:
        outcome = grading.outcome(name)
        for index, given in enumerate(outcome.scenario.meta["cases"]):
            case = as_found(outcome, index, given)
            if case is None:
                continue
            action = expected_action(grading.reference, case["checkpoint"], case["records"], case["service"])
            if wanted is None or action in wanted:
                yield outcome, index, case, action, reconciled(outcome, index, case)


def judgeable(records) -> bool:
    """Records the reference's recovery_action can judge, as the lesson writes them: each with a str "type", an
    outcome's output a str. Only a student's own reconcile, on the step before a call's second reconcile, writes
    others; that step is judged on them."""
    return all(isinstance(r, dict) and isinstance(r.get("type"), str)
               and (r["type"] != "outcome" or isinstance(r.get("output"), str)) for r in records)


def as_found(outcome, index: int, case: dict) -> dict | None:
    """The case as step `index` found and left it, with "given" and "after" (its ledger's text before and after):
    the scenario's ledger and the one left at the end, or, for a call reconciled again later in the same process
    ("again"), the ledger between the two steps (read as the second began); the second also finds a server that may
    have the email now. None for no case of an action: a damaged ledger, or one an earlier step left unreadable or
    with records the lesson's format has not (judged there)."""
    if case.get("damaged"):
        return None
    cases, ledger = outcome.scenario.meta["cases"], case["ledger"]
    again = [n for n in range(index + 1, len(cases)) if cases[n].get("again") and cases[n]["ledger"] == ledger
             and n in outcome.read_before]
    after = outcome.read_before[again[0]].get(ledger) if again else outcome.files_after.get(ledger)
    if not case.get("again"):
        return {**case, "given": outcome.scenario.files.get(ledger), "after": after}
    given = outcome.read_before.get(index, {}).get(ledger)
    records, error = records_in(given)
    if error is not None or not judgeable(records):
        return None
    pending = case["checkpoint"]["pendingToolUse"]
    now_on = {f"step {later}" for later in range(index, len(outcome.steps))}
    sent = keyed(pending["id"]) in [mid for phase, mid in zip(outcome.deliveries, outcome.delivered_ids)
                                    if phase not in now_on]  # by the grader before the steps, or by an earlier step
    known = case.get("lookup_answers", {})
    answers = {pending["id"]: known.get(pending["id"], delivered_text(pending))} if sent else {}  # sent: an email
    return {**case, "given": given, "after": after, "records": records, "sent": sent,
            "service": {"answers": answers, "down": outcome.scenario.service_down}}


def reconciled(outcome, index: int, case: dict) -> Reconciled:
    checkpoint = case["checkpoint"]
    pending = checkpoint["pendingToolUse"]
    what = f"reconcile（悬空的是 {pending['name']}）"
    message = problem(outcome, index, what)
    if message:
        misread = (outcome.steps[index].get("error") or {}).get("type") in READ_ERRORS
        fail(message + (f"{situation(case, outcome)}。{READ_ADVICE}" if misread else ""))
    step = outcome.steps[index]
    state = step["value"]
    if state is None and step.get("args_after"):
        state = step["args_after"][0]
    expect(isinstance(state, dict), f"{what} 应该返回检查点（一个 dict），你的函数返回了 {short(step['value'])}")
    return Reconciled(pending, checkpoint["messages"], step["value"], state, outcome.student_tool_calls(index),
                      checkpoint, len(emails_in_step(outcome, index)))


def situation(case: dict, outcome) -> str:
    pending = case["checkpoint"]["pendingToolUse"]
    ours = [r.get("type") + record_said(r) for r in case["records"] if r.get("toolUseId") == pending["id"]]
    look_alike = ("，已发送列表里倒有一封收件人和主题都相同的旧信，那是早先另发的一封，不是这次调用"
                  if pending["name"] == "send_email" and not case["sent"] else "")
    server = ("连不上" + look_alike if outcome.scenario.service_down else
              "没有收到过" + look_alike if not case["sent"] else
              "已经收到过这封信（lookup_effect 查到的结果文本是空字符串 \"\"：\"\" 也是查到了，没查到才是 None）"
              if case["service"]["answers"].get(pending["id"]) == "" else "已经收到过这封信")
    again = ("。这是同一个进程里第二次对账同一个调用、同一本台账（notebook 里中断之后再运行 run_agent 就会这样）："
             "上一次对账之后台账已经变了，要按此刻重新读到的台账判断，不能沿用上一次读到的记录或上一次的判断"
             if case.get("again") else "")
    return f"（悬空的是 {pending['name']}，台账里它的记录是 {ours or '（没有）'}，服务器{server}{again}）"


def ledger_after(outcome, index: int, case) -> list:
    """The ledger's records once reconcile is over; fail if it lost one of those it had (say at which moment)."""
    records, error = records_in(case["after"])
    given, _ = records_in(case["given"])
    kept = error is None and all(records.count(r) >= given.count(r) for r in given)
    if not kept:
        lost = first_loss(moments(outcome, case["ledger"], index))
        expect(not lost, f"模拟断电：对账{lost}{situation(case, outcome)}")
    expect(error is None, f"对账之后，台账读不出来了（{short(str(error), 80)}）{situation(case, outcome)}")
    expect(kept, f"对账之后，台账里原来的 {len(given)} 条记录只剩 {sum(1 for r in given if r in records)} 条。"
                 f"{LOSS_ADVICE}{situation(case, outcome)}")
    return records


def new_records(outcome, index: int, case, result) -> list:
    """The dangling call's records that reconcile added to its ledger."""
    def mine(records):
        return [r for r in records if isinstance(r, dict) and r.get("toolUseId") == result.pending["id"]]

    before, added = mine(case["records"]), []
    for record in mine(ledger_after(outcome, index, case)):  # a copy of a record it had is added too
        if record in before:
            before.remove(record)
        else:
            added.append(record)
    return added


def one_outcome(grading, outcome, index: int, case: dict, result, where: str):
    """reconcile added one outcome for the dangling call, not two: each call has at most one (the lesson's format).
    Not judged for an append_ledger that writes a record more than once (test_append_ledger judges that)."""
    if not appends_once(grading):
        return
    added = [r for r in new_records(outcome, index, case, result) if r.get("type") == "outcome"]
    expect(len(added) <= 1, f"对账给这次调用往台账里追加了 {len(added)} 条 outcome：每个调用只记一条 outcome"
                            f"（记录的格式：最多一条 intent、一条 outcome），同一个结果不要追加两次{where}")


def appends_once(grading) -> bool:
    """The student's append_ledger, appending to a ledger with records, left no more records than it was given."""
    outcome = grading.outcome("append")
    meta = outcome.scenario.meta
    records, error = records_in(outcome.files_after.get(meta["existing"]))
    return error is None and len(records or []) <= len(meta["old"]) + len(meta["appended"])


def durable(outcome, index: int, case: dict, call_id: str, where: str):
    """A power cut at any moment a record of reconcile's must already be on disk: at the tool's execution its
    intent, once reconcile has returned its outcome (the model of autograder.crash_states, as for execute_with_ledger);
    and at no moment may one be lost that was on disk already (a torn last line dropped by rewriting the ledger)."""
    found = moments(outcome, case["ledger"], index)
    lost = first_loss(found)
    expect(not lost, f"模拟断电：对账{lost}{where}")
    for kind, when, contents in found:
        if kind in ("start", "call"):
            continue
        wanted = "intent" if kind == "tool" else "outcome"
        for content in contents:
            records, _ = records_in(content)
            expect(of(records, call_id, wanted),
                   f"模拟断电：对账{when}断电，台账里没有这次调用的 {wanted}：对账追加的记录也要在执行之前（intent）、"
                   f"返回之前（outcome）落盘，用 append_ledger / execute_with_ledger（flush + os.fsync）"
                   + (f"。对账之前台账还不存在，断电后台账文件不见了：{FOLDER_ADVICE}" if content is None
                      and case.get("given") is None else "") + where)


def flag_fits(result, output, where: str):
    """The result's is_error is right for `output`, the call's definite outcome, by the contract: a failed tool's
    result (the output begins with "错误") may be flagged, as in lesson 3, or not, as the reference does; a success's
    may not be."""
    flag = result.result_block().get("is_error", MISSING)
    if error_flag_right(flag, output):
        return
    expect(flag is True, f"is_error 要是布尔值（True 或 False），你的是 {short(flag)}（{type(flag).__name__}）：API 会检查它的类型{where}")
    fail(f"结果是查得到的，工具也没有失败，tool_result 不应该标 is_error——这正是台账要消灭的「未知」{where}")


@pytest.mark.grade(GRADE, 1)
def test_recorded_outcome_is_reused(grading):
    """台账里有 outcome：直接复用它作为结果，不执行工具、不发信（服务器连不上也一样）"""
    for outcome, index, case, action, result in cases(grading, {"reuse"}):
        where = situation(case, outcome)
        recorded = of(case["records"], result.pending["id"], "outcome")[-1]["output"]
        expect(not result.calls, f"台账里已经有这次调用的 outcome，却又执行了 {short([c['name'] for c in result.calls])}{where}")
        expect(not emails_in_step(outcome, index), f"台账里已经有 outcome，却又发出了邮件{where}")
        content = result.result_block().get("content")
        if not carries_output(content, recorded):
            borrowed = next((r for r in case["records"] if r.get("type") == "outcome" and r.get("output")
                             and r.get("toolUseId") != result.pending["id"] and r["output"] not in recorded
                             and carries_output(content, r["output"])), None)  # its twin's output is its own text
            expect(borrowed is None,
                   f"tool_result 带的是台账里另一次调用（toolUseId {borrowed and borrowed.get('toolUseId')}）的 output："
                   f"复用的 outcome 要按悬空调用自己的 id（{result.pending['id']}）去找，不能拿它的 intent 之后的第一条"
                   f" outcome，也不能按名字、参数找（两次调用的记录之间可能夹着别的调用的记录）{where}")
            fail(f"tool_result 要带着台账 outcome 里记的 output（{short(recorded, 40)}），整段、不截短，前后加几句话可以{where}")
        flag_fits(result, recorded, where)
        added = new_records(outcome, index, case, result)
        expect(not added, f"复用台账里的 outcome 时台账不动，你的 reconcile 又追加了 {short(added)}{where}")


@pytest.mark.grade(GRADE, 1)
def test_service_knows_the_call(grading):
    """只有 intent、服务器按键认得这次调用：不多发一封，结果是服务器的回答，并追加 outcome 记下它（返回之前落盘）"""
    for outcome, index, case, action, result in cases(grading, {"record"}):
        where = situation(case, outcome)
        pending = result.pending
        emails = emails_in_step(outcome, index)
        expect(not emails, f"信在崩溃前已经送达，对账又让服务器收到了 {len(emails)} 封"
                           + ("（没带幂等键，或者换了一把键：服务器认不出这是同一次调用）" if emails else "") + where)
        resent = [c for c in result.calls if c["name"] == pending["name"] and c.get("key") == pending["id"]]
        others = [c["name"] for c in result.calls if c not in resent]
        expect(not others, f"这里不需要执行别的工具（你执行了 {short(others)}）{where}")
        # only the answer asked under this call's own id: another call's (its twin's, same name and input) is
        # another email's record
        answers = {c["answer"] for c in outcome.lookups
                   if c["step"] == index and c["key"] == pending["id"] and c["answer"] is not None}
        answers |= {c["output"] for c in resent}
        content = result.result_block().get("content")
        carried = [answer for answer in answers if carries_output(content, answer)]
        flag_fits(result, (carried or sorted(answers) or [""])[0], where)  # the service's answer: a definite outcome
        expect(carried, "tool_result 要带着服务器的回答：lookup_effect(name, id) 查到的那段文本（或者带同一把键重发时"
                        f"服务器的回答），整段、前后加几句话可以，你的是 {short(text_of(content), 60)}{where}")
        after = ledger_after(outcome, index, case)
        recorded = of(after, pending["id"], "outcome")
        elsewhere = [r for r in after[len(records_in(case["given"])[0]):] if r.get("type") == "outcome"
                     and r.get("toolUseId") != pending["id"] and r.get("output") in carried]
        expect(recorded or not elsewhere,
               f"服务器的回答追加进了台账，可那条 outcome 的 toolUseId 是 {short(elsewhere and elsewhere[0].get('toolUseId'))}"
               f"（另一次调用的 id），不是悬空调用自己的 {pending['id']}：outcome 要记在这次调用的 id 下，用 "
               f"pendingToolUse[\"id\"]，不要拿台账里最后一条 intent 的 id（它之后可能还有别的调用开始过）{where}")
        expect(recorded and recorded[-1].get("output") in carried,
               f"服务器的回答要追加进台账（一条 outcome，output 就是这段回答），下次恢复就不用再问{where}")
        one_outcome(grading, outcome, index, case, result, where)
        durable(outcome, index, case, pending["id"], where)


def check_damaged(grading):
    """A ledger with a line in the middle that is no record: the student's reconcile raises what the reference's
    does (read_ledger's ValueError), runs nothing and leaves the file as it was."""
    outcome = grading.outcome("reconcile_up")
    for index, case in enumerate(outcome.scenario.meta["cases"]):
        if not case.get("damaged"):
            continue
        pending = case["checkpoint"]["pendingToolUse"]
        content = outcome.scenario.files[case["ledger"]]
        wanted = reference_raises(grading, "reconcile", lambda path: path.write_text(content, encoding="utf-8"),
                                  case["checkpoint"], lookup_effect=answering_lookup(case["service"]))
        where = (f"（悬空的是 {pending['name']}，台账里有它的 intent，但台账中间有一行不是完整的记录——"
                 "文件坏了，课程的 read_ledger 读它抛出 ValueError）")
        ran = [c["name"] for c in outcome.student_tool_calls(index)]
        expect(not ran and not emails_in_step(outcome, index),
               f"台账读不出来，reconcile 却执行了 {short(ran) if ran else 'send_email'}{where}：坏了的台账不等于没有记录，"
               "当成空台账，做过的调用就会再做一次。要让 read_ledger 的 ValueError 抛出去，等人来看")
        if wanted is None:
            continue
        expect_raised_as(outcome, index, wanted, "reconcile",
                         "台账读不出来，reconcile 应该让 {error} 抛出去（和第 3 课读不出来的检查点一样，不能当成没有记录）", where)
        expect(outcome.files_after.get(case["ledger"]) == content, f"台账读不出来时，reconcile 不能改动它：坏文件要原样留着等人来看{where}")


@pytest.mark.grade(GRADE, 1)
def test_never_reached_is_sent_once(grading):
    """调用从没到达服务器（没有 intent，或服务器说没收到）：经过台账、带同一把键执行恰好一次（intent 在执行之前、outcome 在返回之前落盘）；台账中间坏了不算没有记录：让 ValueError 抛出去"""
    check_damaged(grading)
    for outcome, index, case, action, result in cases(grading, {"execute"}):
        where = situation(case, outcome)
        pending = result.pending
        ran = [c for c in result.calls if c["name"] == pending["name"]]
        expect(len(ran) == 1, f"这次调用从没生效，应该执行恰好一次，实际执行了 {len(ran)} 次{where}")
        expect(ran[0].get("key") == pending["id"], f"重新执行要带同一把幂等键 {pending['id']}（悬空调用的 id），"
                                                   f"你传的是 {short(ran[0].get('key'))}{where}")
        expect(same(ran[0]["input"], pending["input"]), f"重新执行要用悬空调用原来的 input{where}")
        if pending["name"] == "send_email" and not outcome.scenario.service_down:
            expect(emails_in_step(outcome, index) == [keyed(pending["id"])],
                   f"服务器应该正好收到 1 封带这次调用的键的信，实际收到 {len(emails_in_step(outcome, index))} 封{where}")
        ledger_after(outcome, index, case)  # a ledger that lost records lacks the intent too: that is the fault to name
        then, _ = records_in(ran[0]["ledgers"].get(case["ledger"]))
        expect(of(then, pending["id"], "intent"), f"执行的那一刻台账里要有这次调用的 intent（走 execute_with_ledger）{where}")
        expect(carries_output(result.result_block().get("content"), ran[0]["output"]),
               f"tool_result 要带着这次执行返回的文本（整段，前后加几句话可以）{where}")
        flag_fits(result, ran[0]["output"], where)
        recorded = of(ledger_after(outcome, index, case), pending["id"], "outcome")
        expect(recorded, f"执行之后要在台账里追加 outcome{where}")
        expect(recorded[-1].get("output") == ran[0]["output"],
               f"执行之后追加的 outcome 要在 \"output\" 字段里原样记下工具返回的文本{where}：你记的是 {short(recorded[-1], 100)}")
        durable(outcome, index, case, pending["id"], where)


@pytest.mark.grade(GRADE, 1)
def test_unknown_only_when_unanswerable(grading):
    """只有服务器答不上来时才补 is_error（布尔值 True 和一句说明），这时不执行工具、不发信"""
    for outcome, index, case, action, result in cases(grading, {"is_error"}):
        where = situation(case, outcome)
        block = result.result_block()
        # a retry with the same key at a service that recognises keys (the mail server) can deliver nothing new
        ran = [c["name"] for c in result.calls if not (c["name"] == "send_email" == result.tool
                                                       and c.get("key") == result.pending["id"])]
        expect(not ran, f"服务器答不上来时不执行工具，你执行了 {short(ran)}：悬空的 {result.tool} 可能已经生效了，再执行"
                        f"可能重复一次，别的工具（比如已发送列表）的回答也说明不了它有没有生效{where}")
        expect(not emails_in_step(outcome, index), f"服务器答不上来，却发出了邮件{where}")
        expect(error_flag_right(block.get("is_error", MISSING), UNKNOWN),
               f"服务器答不上来，结果真的未知：tool_result 要带 is_error: True（布尔值），你的是 {short(block.get('is_error'))}{where}")
        expect(text_of(block.get("content")).strip(), f"is_error 结果也要在 content 里写一句：结果未知、请先确认{where}")
        # what a retry with the same key really answered may be kept, but not its failure: the service was down for
        # the retry, which says nothing of the first try (recorded, "not sent" would be reused as a definite result)
        outputs = [c["output"] for c in result.calls if not failed(c["output"])]
        guessed = [r for r in new_records(outcome, index, case, result) if r.get("type") == "outcome"
                   and r.get("output") not in outputs]
        expect(not guessed, "结果未知时台账不动：记一条 outcome，下次恢复就会把「未知」当成确定的结果复用，"
                            f"is_error 也丢了（你的 reconcile 追加了 {short(guessed)}）{where}")
        wrong = unknown_wording_problem(text_of(block.get("content")))
        expect(wrong is None, f"is_error 结果{wrong}。content 要写明结果未知、可能已经生效、请先确认现状{where}")
    for outcome, index, case, action, result in cases(grading, {"rerun"}):
        ran = [c["output"] for c in result.calls]  # none run: no failure to flag (test_one_paired_result says so)
        flag_fits(result, ran[0] if ran else "", situation(case, outcome))


def check_no_save(grading):
    """reconcile wrote no checkpoint, however and wherever (the ledger's records are none), as in lesson 3: saving
    is run_agent's, to the path only it knows. A save that the student's recovery_action makes on its own is judged
    there (test_recovery_action), not again here."""
    from .test_recovery_action import side_effects
    if side_effects(grading.outcome("recovery_action")):
        return
    for name in SCENARIOS:
        outcome = grading.outcome(name)
        for index in range(len(outcome.steps)):
            saved = checkpoints_written(outcome, index, records=False)
            if saved:
                more = f" 等 {len(saved)} 个文件" if len(saved) > 1 else ""
                fail(f"reconcile 写了 {saved[0]}{more}（存了检查点）：和第 3 课一样，对账只补上结果、返回检查点，存档由 "
                     "run_agent 在对账之后做，存到它收到的 path。reconcile 不知道这个 path，自己存就存错了地方"
                     "（默认的 checkpoint.json 可能是另一个任务的检查点，被它盖掉）")


@pytest.mark.grade(GRADE, 1)
def test_one_paired_result_on_every_path(grading):
    """每条路径都恰好补一条配对的 tool_result、清掉 pendingToolUse、其余字段不动、不自己存档；只读工具重新执行一次"""
    check_no_save(grading)
    for outcome, index, case, action, result in cases(grading):
        the_result(result)
        expect(result.state.get("pendingToolUse", "缺少") is None,
               f"对账之后 pendingToolUse 应该设为 None{situation(case, outcome)}")
        changed = result.changed_fields()
        expect(not changed, f"对账只补一条 tool_result、清掉 pendingToolUse，你的改了 {'、'.join(changed)}"
                            f"{situation(case, outcome)}")
        if action == "rerun":
            check_rerun(result)
            # reading the ledger may cut a torn last line off (course.ledger.read_ledger does): records are compared
            given, _ = records_in(case["given"])
            expect(ledger_after(outcome, index, case) == given,
                   "悬空的是只读工具，重新执行之后台账不动：只读工具不记台账（不追加 intent，也不追加 outcome）"
                   f"{situation(case, outcome)}")
