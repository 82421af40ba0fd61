"""The incident, fixed (test_incident_fix, 3 points): the submission as a whole, nothing stood in.

First the incident's state as the notebook builds it (the checkpoint at save point A with
send_email dangling, the ledger holding only its intent, the email delivered with its key) and
the student's run_agent resuming from it; then the incident replayed for real: the grader kills
run_agent right after the server delivered the email and starts it again.
"""
import pytest

from autograder.contract import carries_output
from autograder.protocol import StepStatus

from .helpers import expect, fail, keyed, of, pairing_problem, problem, records_in, returned, short, text_of

GRADE = "test_incident_fix"


def answer_to(messages, tool_id):
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                return block
    return None


def ledgers_written_elsewhere(outcome, ledger: str, call_id: str) -> list:
    """Files other than the ledger beside the checkpoint into which the run wrote a record of this call."""
    workdir = outcome.workdir.rstrip("/") + "/"
    found = set()
    for event in outcome.fs_events:
        data = event.get("data") if isinstance(event, dict) and event.get("op") == "write" else None
        path = event.get("path") if isinstance(data, bytes) else None
        if isinstance(path, str) and path != workdir + ledger and call_id.encode() in data and b"toolUseId" in data:
            found.add(path[len(workdir):] if path.startswith(workdir) else path)
    return sorted(found)


def resumed(grading):
    outcome = grading.outcome("incident_state")
    state = returned(outcome, 0, "从事故现场续跑的 run_agent")
    expect(isinstance(state, dict), f"run_agent 应该返回最终状态（一个 dict），你的返回了 {short(state)}")
    return outcome, state, outcome.scenario.meta["checkpoint"]["pendingToolUse"]


@pytest.mark.grade(GRADE, 1)
def test_one_email(grading):
    """从事故现场续跑：邮件服务器上这次调用的信一共只有一封"""
    outcome, state, pending = resumed(grading)
    expect(outcome.delivered_ids == [keyed(pending["id"])],
           f"从事故现场续跑后，服务器一共收到 {len(outcome.delivered_ids)} 封（崩溃前已经送达 1 封），应该正好 1 封："
           "台账里只有 intent 时，要先按幂等键问服务器，或者带同一把键重发")


@pytest.mark.grade(GRADE, 1)
def test_result_is_the_service_answer(grading):
    """悬空的 send_email 得到确定的结果（服务器的回答，不是 is_error），并记进台账，对话过得了配对检查"""
    outcome, state, pending = resumed(grading)
    block = answer_to(state.get("messages"), pending["id"])
    expect(block is not None, "续跑后的对话里，悬空的 send_email 没有得到 tool_result：恢复时要先对账再调用模型")
    expect(block.get("is_error") is not True, "悬空的 send_email 得到的是 is_error：服务器明明答得上来（信已送达），结果是确定的")
    answers = {c["answer"] for c in outcome.lookups if c["answer"]}
    answers |= {c["output"] for c in outcome.tool_calls if c["name"] == "send_email" and c.get("key") == pending["id"]}
    expect(any(carries_output(block.get("content"), answer) for answer in answers),
           "悬空的 send_email 的结果要带着服务器按幂等键给的回答（整段，前后加几句话可以），"
           f"你的是 {short(text_of(block.get('content')), 60)}")
    ledger = outcome.scenario.meta["ledger"]
    records, _ = records_in(outcome.files_after.get(ledger))
    elsewhere = ledgers_written_elsewhere(outcome, ledger, pending["id"])
    expect(of(records, pending["id"], "outcome") or not elsewhere,
           f"这次调用的记录写进了 {short(elsewhere)}，不是检查点旁边的台账 {ledger}：续跑时要 reconcile(state, ledger_path(path))"
           "，读和写的都是 path 旁边的那本台账，否则对账看不见崩溃前的 intent，下次恢复也找不到这次的 outcome")
    expect(of(records, pending["id"], "outcome"), "服务器的回答要追加进台账（outcome），下次恢复就不用再问")
    trouble = pairing_problem(state.get("messages"))
    expect(trouble is None, f"续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")


@pytest.mark.grade(GRADE, 1)
def test_real_replay(grading):
    """真的重演事故（send_email 送达之后被 SIGKILL，再续跑）：只有一封信，没有 is_error"""
    outcome = grading.outcome("incident_replay")
    if outcome.steps[0]["status"] != StepStatus.CRASHED_BY_GRADER:
        fail("重演事故：没有走到 send_email——" + (problem(outcome, 0, "run_agent")
                                               or "run_agent 没有通过 execute_tool 执行 send_email"))
    state = returned(outcome, 1, "崩溃后重启的 run_agent")
    expect(isinstance(state, dict), f"崩溃后重启的 run_agent 应该返回最终状态（一个 dict），你的返回了 {short(state)}")
    sends = [c for c in outcome.tool_calls if c["name"] == "send_email"]
    call_id = sends[0].get("key") if sends else None
    expect(len(outcome.delivered_ids) == 1 and all(c.get("key") == call_id for c in sends),
           f"重演事故后服务器一共收到 {len(outcome.delivered_ids)} 封，应该正好 1 封（每次发信都带同一把键）")
    flags = [b for m in state.get("messages") or [] if isinstance(m, dict) and isinstance(m.get("content"), list)
             for b in m["content"] if isinstance(b, dict) and b.get("is_error") is True]
    expect(not flags, "重演事故后对话里有 is_error 结果：服务器答得上来，结果是确定的")
