"""Level 2 (test_incident_fix, 3 points): the fix holds when the incident is replayed for real.

test_reconcile grades reconcile on its own; here the submission runs as a whole, with
its own run_agent, save, load and reconcile (nothing stood in), the way the notebook's
replay runs it: the grader kills the child at the incident's moment and starts it again
on the same checkpoint.json. The grader answers execute_tool and runs the mail server,
so a send that bypasses execute_tool (smtplib, course.tools.send_email) is counted too.
"""
import pytest

from autograder.protocol import StepStatus

from .helpers import (FORMAT_ADVICE, expect, fail, one_email, pairing_problem, problem, returned, same, saved_state,
                      short, text_of)

GRADE = "test_incident_fix"


def restarted(outcome, what: str) -> dict:
    """The final state of the run started again after the grader's kill; fail saying why there is none."""
    if outcome.steps[0]["status"] != StepStatus.CRASHED_BY_GRADER:
        fail(f"{what}：没有走到评分器要杀进程的那一步——"
             + (problem(outcome, 0, "run_agent") or "run_agent 没有通过 execute_tool 执行到那个工具"))
    state = returned(outcome, 1, "崩溃后重启的 run_agent")
    expect(isinstance(state, dict), f"崩溃后重启的 run_agent 应该返回最终状态（一个 dict），你的返回了 {short(state)}")
    return state


def answer_to(messages: list, tool_id: str) -> dict | None:
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                return block
    return None


def dangling_call(outcome) -> dict:
    """The call the grader killed the child in, as the checkpoint recorded it at save point A."""
    crashed = outcome.student_tool_calls(0)[-1]  # the grader kills the child during its last tool call
    expect(not (crashed.get("snapshot") or {}).get("invalid"),
           f"崩溃那一刻（{crashed['name']} 执行中），磁盘上的检查点不是 UTF-8 的 JSON 文本，读不出来。{FORMAT_ADVICE}")
    pending = saved_state(crashed).get("pendingToolUse")
    expect(isinstance(pending, dict) and pending.get("name") == crashed["name"],
           f"崩溃那一刻（{crashed['name']} 执行中），检查点里的 pendingToolUse 没有记下这次调用：存档点 A 要在执行工具之前保存")
    return pending


@pytest.mark.grade(GRADE, 1)
def test_the_incident_sends_one_email(grading):
    """重演事故（send_email 投递之后、存档点 B 之前被 SIGKILL，再续跑）：邮件服务器一共只收到一封"""
    outcome = grading.outcome("incident_replay")
    restarted(outcome, "重演事故")
    crashed = outcome.student_tool_calls(0)[-1]
    pending = saved_state(crashed).get("pendingToolUse")
    recorded = isinstance(pending, dict) and pending.get("name") == crashed["name"]
    # a checkpoint that never recorded the call (save point A after the tool, or none): the model asks again on resume
    one_email(outcome, "看看你的 reconcile 对 send_email 走的是哪条路" if recorded else
              "崩溃那一刻检查点里还没有记下这次 send_email（存档点 A 要在执行工具之前保存）：重启后模型不知道自己要过"
              "这次调用，又决定发一次")


@pytest.mark.grade(GRADE, 1)
def test_the_dangling_send_email_is_answered_with_is_error(grading):
    """续跑后的对话里，悬空的 send_email 恰好得到一个 is_error 结果，整段对话过得了 API 的配对检查"""
    outcome = grading.outcome("incident_replay")
    state = restarted(outcome, "重演事故")
    pending = dangling_call(outcome)
    messages = state.get("messages")
    expect(isinstance(messages, list), "续跑后的状态里 messages 应该是一个 list")
    block = answer_to(messages, pending.get("id"))
    expect(block is not None, "续跑后的对话里，悬空的 send_email 没有得到 tool_result：恢复时要先对账再调用模型")
    expect(block.get("is_error") is True, "悬空的 send_email 没有重新执行，它的 tool_result 要带 is_error: True（布尔值）"
           + (f"，你写的是 {short(block.get('is_error'))}" if "is_error" in block else "，你的没有 is_error"))
    trouble = pairing_problem(messages)
    expect(trouble is None, f"续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")
    expect(state.get("pendingToolUse", "缺少") is None, "任务结束时 pendingToolUse 应该是 None")


@pytest.mark.grade(GRADE, 1)
def test_a_dangling_read_only_call_is_run_again(grading):
    """只读调用执行到一半被 SIGKILL：续跑时它重新执行一次，真实输出补进对话，任务接着跑完"""
    outcome = grading.outcome("incident_read_only_crash")
    state = restarted(outcome, "只读调用中途崩溃")
    pending = dangling_call(outcome)
    again = outcome.student_tool_calls(1)
    expect(not isinstance(pending.get("input"), str),
           f"崩溃那一刻，存下的 pendingToolUse 里 input 是一个字符串（{short(pending.get('input'))}）：要原样记下 tool_use 的 "
           "input 对象（dict），不要先 json.dumps 成字符串，重新执行时用的就是它")
    expect(not again or again[0]["name"] != pending["name"] or same(again[0]["input"], pending.get("input")),
           f"重启后第一个执行的是悬空的 {pending['name']}，可它收到的 input 是 {short(again[0]['input'] if again else None)}，"
           f"检查点里记的是 {short(pending.get('input'))}：重新执行要用悬空调用原来的 input")
    expect(again and again[0]["name"] == pending["name"],
           f"重启后第一个执行的工具应该是悬空的只读调用 {pending['name']}（原来的 input），"
           f"实际是 {short([c['name'] for c in again]) if again else '什么也没有'}")
    first_model_call = min((c["seq"] for c in outcome.model_calls if c["step"] == 1), default=None)
    expect(first_model_call is None or again[0]["seq"] < first_model_call,
           f"重启后要先对账（重新执行悬空的 {pending['name']}），再调用模型；你的 run_agent 先调用了模型，"
           "模型只好把这一步重新想一遍——悬空的 assistant 消息被删掉了吗？")
    messages = state.get("messages")
    block = answer_to(messages if isinstance(messages, list) else [], pending.get("id"))
    expect(block is not None and again[0]["output"] in text_of(block.get("content")),
           f"悬空的 {pending['name']} 重新执行之后，它这次的真实输出要作为配对的 tool_result 补进对话")
    expect(not block.get("is_error"), f"{pending['name']} 重新执行成功了，它的结果不应该标 is_error")
    trouble = pairing_problem(messages)
    expect(trouble is None, f"续跑后的对话过不了 API 的配对检查：{short(trouble, 160)}")
