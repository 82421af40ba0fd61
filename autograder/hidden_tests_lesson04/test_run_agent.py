"""run_agent (test_run_agent, 2 points): the ledger wired into the loop, end to end.

save_checkpoint and load_checkpoint are the grader's own here (lesson 3's code earns no points
in this lesson); execute_with_ledger and reconcile are the student's. The email task runs from
scratch, then is killed at each moment of its send: as send_email reaches the grader (the
intent written, nothing delivered) and right after the server delivered it (no outcome yet).
Effects are counted at the grader's mail server, by Message-ID.
"""
import pytest

from autograder.protocol import StepStatus

from .helpers import expect, fail, keyed, of, pairing_problem, problem, records_in, returned, saved_state, short

GRADE = "test_run_agent"


def send_id(outcome) -> str | None:
    """The tool_use id the model gave the send_email call (from the grader's own record of its replies)."""
    for model_call in outcome.model_calls:
        reply = model_call.get("reply") or {}
        for block in reply.get("content") or []:
            if block.get("type") == "tool_use" and block.get("name") == "send_email":
                return block.get("id")
    return None


def unknown_results(messages) -> int:
    return sum(1 for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error") is True)


def received(outcome, call_id) -> str:
    mine = outcome.delivered_ids.count(keyed(call_id)) if call_id else 0
    return f"一共收到 {len(outcome.delivered_ids)} 封，其中带这次调用的键的 {mine} 封"


def results_in(state: dict) -> set:
    """The tool_use ids that the tool_results in a checkpoint's messages answer."""
    messages = state.get("messages") if isinstance(state.get("messages"), list) else []
    return {b.get("tool_use_id") for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"}


def final(outcome, index: int) -> dict:
    state = returned(outcome, index, "run_agent")
    expect(isinstance(state, dict), f"run_agent 应该返回最终状态（一个 dict），你的函数返回了 {short(state)}")
    expect(state.get("pendingToolUse", "缺少") is None, "任务结束时 pendingToolUse 应该是 None")
    return state


@pytest.mark.grade(GRADE, 1)
def test_sends_through_the_ledger(grading):
    """发信任务从头跑：send_email 带着它的 tool_use id 作键发出一封，台账（检查点旁边的 ledger_path(path)）里有它的 intent 和 outcome"""
    outcome = grading.outcome("agent_email")
    final(outcome, 0)
    call_id = send_id(outcome)
    expect(call_id, "发信任务里模型没有要求 send_email：run_agent 没有把工具结果交回给模型吗？")
    expect(outcome.delivered_ids == [keyed(call_id)],
           f"邮件服务器{received(outcome, call_id)}，应该正好 1 封、带这次调用的键（Message-ID {keyed(call_id)}）："
           "run_agent 执行工具要走 execute_with_ledger")
    records, error = records_in(outcome.files_after.get(outcome.scenario.meta["ledger"]))
    expect(error is None and of(records, call_id, "intent") and of(records, call_id, "outcome"),
           "检查点旁边的台账 ledger_path(path) 里没有这次 send_email 的 intent 和 outcome："
           "run_agent 执行工具要走 execute_with_ledger(call, ledger_path(path))")
    sent = next(c for c in outcome.tool_calls if c["name"] == "send_email")
    pending = saved_state(sent).get("pendingToolUse")
    expect(isinstance(pending, dict) and pending.get("id") == call_id,
           f"send_email 执行的那一刻，磁盘上的检查点还没有记下这次调用（pendingToolUse 是 {short(pending)}）："
           "存档点 A 要在执行之前。不然在这时崩溃，检查点里就没有这次调用，续跑时模型会重新提出一个新 id 的调用，"
           "键变了，信就发了两次")


@pytest.mark.grade(GRADE, 1)
def test_every_crash_of_the_send(grading):
    """send_email 执行前、送达后各被 SIGKILL 一次再续跑：每次都只送达一封，结果都是确定的（没有 is_error）"""
    for name, moment in (("agent_crash_before_send", "send_email 到达服务器之前（意图已记、信还没发）"),
                         ("agent_crash_after_send", "send_email 送达之后、记下结果之前")):
        outcome = grading.outcome(name)
        if outcome.steps[0]["status"] != StepStatus.CRASHED_BY_GRADER:
            fail(f"发信任务没有走到 send_email：" + (problem(outcome, 0, "run_agent")
                                                 or "run_agent 没有通过 execute_tool 执行 send_email"))
        state = final(outcome, 1)
        call_id = send_id(outcome)
        expect(outcome.delivered_ids == [keyed(call_id)],
               f"在{moment}被杀掉再续跑，邮件服务器{received(outcome, call_id)}，应该正好 1 封、"
               f"带这次调用的键：续跑时要 reconcile(state, ledger_path(path))，按台账和幂等键决定")
        messages = state.get("messages") if isinstance(state.get("messages"), list) else []
        unknown = unknown_results(messages)
        expect(not unknown, f"在{moment}被杀掉再续跑，对话里有 {unknown} 个 is_error 结果：服务器答得上来，结果就是确定的")
        trouble = pairing_problem(messages)
        expect(trouble is None, f"续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")
        asked = [c for c in outcome.model_calls if c["step"] == 1][:1]
        saved = saved_state(asked[0]) if asked else {}
        expect(not asked or (saved.get("pendingToolUse", "缺少") is None and call_id in results_in(saved)),
               f"在{moment}被杀掉再续跑：对账之后、再调用模型之前，磁盘上的检查点还是对账之前的样子"
               "（还挂着悬空调用，或者没有它的 tool_result）：reconcile 之后要照旧存一次档")

