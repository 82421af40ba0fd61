"""What the hidden tests share: failing with a message for the student, and reading
the data that came back from the sandbox without trusting its shape.

A check fails only through `fail(message)`: the message is written for the student,
in Chinese, and is all the feedback shows. Data from the child is plain JSON, but of
any shape, so every access goes through a helper that fails with a message instead of
raising KeyError.
"""
import json
import os
import re

import pytest

from course.model import InvalidRequest, check_tool_pairing

# Which answer cell defines each name the tests use.
DEFINED_IN = {"save_checkpoint": "save_load", "load_checkpoint": "save_load", "run_agent": "run_agent",
              "reconcile": "reconcile", "recovery_action": "recovery_action",
              "QUIZ_DELETE_ANSWER": "quiz_delete", "ROOT_CAUSE_ANSWER": "root_cause",
              "QUIZ_FAILURE_ANSWER": "quiz_failure", "READ_ONLY_TOOLS": "read_only_tools"}


def fail(message: str):
    pytest.fail(message, pytrace=False)


def expect(condition, message: str):
    if not condition:
        fail(message)


def short(value, limit: int = 60) -> str:
    """A value from the student's code, cut short for a message."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def as_json(value) -> str:
    """A value as the student would write it in Python, so "true" and True look different."""
    return short(json.dumps(value, ensure_ascii=False)) + ("（字符串）" if isinstance(value, str) else "")


def same(a, b) -> bool:
    """Equal as JSON data: 1, 1.0 and True are three different things here."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def problem(outcome, index: int, what: str) -> str | None:
    """Why step `index` gave no value, in the student's terms; None if it returned."""
    step = outcome.steps[index]
    status = step["status"]
    if status == "returned":
        return None
    if status == "raised":
        error = step["error"]
        if error["type"] == "BadRequestError":
            return f"{what} 调用模型时，API 返回了 400：{api_advice(error['message'])}"
        return f"{what} 抛出了 {error['type']}：{short(error['message'], 120)}"
    if status == "missing":
        name = outcome.scenario.steps[index]["name"]
        return missing_message(outcome, name)
    if status == "unsupported":
        return f"{what} 返回的数据不能存成 JSON（{step.get('detail')}）"
    if status == "timeout":
        return f"{what} 超过 {step.get('detail')} 还没有结束（死循环或在等什么），这一项不得分"
    if status == "died":
        return f"{what} 运行时{step.get('detail')}，这一项不得分"
    if status == "crashed_by_grader":
        return f"{what} 被评分器按计划中途终止了"
    return f"前面的步骤失败了，{what} 没有运行"


def api_advice(message: str) -> str:
    if "without `tool_result`" in message:
        return ("对话里有一个 tool_use 等不到与它 id 相同的 tool_result。恢复时检查点里有悬空调用（pendingToolUse 不是 None），"
                "要先对账（调用 reconcile）再调用模型")
    if "unexpected `tool_use_id`" in message:
        return "有一个 tool_result 的 tool_use_id 在上一条 assistant 消息里找不到"
    return short(message, 160)


def missing_message(outcome, name: str) -> str:
    cell = DEFINED_IN.get(name, name)
    reason = "提交里没有这个单元格"
    report = outcome.cells.get(cell)
    if report and report["status"] == "raised":
        error = report["error"]
        reason = f"这个单元格运行时抛出了 {error['type']}：{short(error['message'], 100)}"
    elif report and report["status"] in ("timeout", "died"):
        reason = "这个单元格一运行就卡住或让进程退出，评分时跳过了它"
    elif report:
        reason = "这个单元格运行完了，但没有定义它"
    return f"没有找到 {name}（它应该在答题单元格 {cell} 里定义；{reason}）"


def returned(outcome, index: int, what: str):
    """The value step `index` returned, or fail saying why there is none."""
    message = problem(outcome, index, what)
    if message:
        fail(message)
    return outcome.steps[index]["value"]


def field(state, key: str, what: str):
    expect(isinstance(state, dict), f"{what} 应该是一个 dict，实际是 {short(state)}")
    expect(key in state, f"{what} 里没有 {key} 字段")
    return state[key]


def text_of(content) -> str:
    """The text of a tool_result's content (a string, or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def pairing_problem(messages) -> str | None:
    try:
        check_tool_pairing(messages)
    except InvalidRequest as exc:
        return str(exc)
    except (AttributeError, TypeError, KeyError, IndexError):
        return "messages 的结构不对"
    return None


def without_paths(message: str, workdir: str, *names: str) -> str:
    """The message with every spelling of the checkpoint's path taken out (paths may contain digits)."""
    for name in names:
        for spelling in (os.path.join(workdir, name), os.path.realpath(os.path.join(workdir, name))):
            message = message.replace(spelling, " ")
    for spelling in (workdir, os.path.realpath(workdir), *names):
        message = message.replace(spelling, " ")
    return message


def mentions_number(text: str, number: int) -> bool:
    return re.search(rf"(?<!\d){number}(?!\d)", text) is not None


def usage_total(model_call: dict) -> int:
    usage = model_call["reply"]["usage"]
    return usage["input_tokens"] + usage["output_tokens"]
