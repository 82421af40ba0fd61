"""What lesson 4's hidden tests share, on top of lesson 3's (failing with a message for the student,
reading the sandbox's data without trusting its shape): reading a ledger back, the emails a step
delivered, and the reference's answer for a case."""
import copy
import json
from pathlib import Path

from autograder.contract import error_kind
from autograder.scenario_run import answering_lookup
from autograder.hidden_tests.reconciled import NOT_RUN
from autograder.hidden_tests.helpers import (emails_in_step, expect, expect_letter, fail, files_written, pairing_problem,  # noqa: F401
                                             problem as lesson3_problem, returned as lesson3_returned, same,
                                             holds_state, saved_state, short, text_of, tools_answering)
from autograder.protocol import StepStatus
from autograder.sandbox import scratch_folder
from course.ledger import LEDGER_NAME, read_ledger
from course.tools import message_id_for

def case_size(value) -> int:
    """How big a generated input is: the feedback shows the smallest one that fails."""
    return len(json.dumps(value, ensure_ascii=False))


# Which answer cell defines each name the tests use.
DEFINED_IN = {"save_checkpoint": "lesson3_code", "load_checkpoint": "lesson3_code", "EFFECTS": "effects",
              "QUIZ_EXACTLY_ONCE_ANSWER": "quiz_exactly_once", "QUIZ_KEY_ANSWER": "quiz_key",
              "ROOT_CAUSE_ANSWER": "root_cause"}


def problem(outcome, index: int, what: str) -> str | None:
    """Lesson 3's reading of a step that gave no value, with lesson 4's cells named."""
    step = outcome.steps[index]
    if step["status"] == StepStatus.MISSING:
        name = outcome.scenario.steps[index]["name"]
        return f"没有找到 {name}（它应该在答题单元格 {DEFINED_IN.get(name, name)} 里定义）"
    return lesson3_problem(outcome, index, what)


def reference_raises(grading, function: str, ledger_made, *args, ledger_first: bool = False,
                     **tools) -> BaseException | None:
    """The oracle for a case meant to fail: what the reference's `function(*args, ledger)` raises (None if it
    returns; `ledger_first`: `function(ledger, *args)`, as append_ledger takes it), its ledger made by
    `ledger_made(path)` in a scratch folder, its tools answering as `tools` say (execute_tool answers NOT_RUN unless
    given)."""
    tools.setdefault("execute_tool", lambda *args, **kwargs: NOT_RUN)
    with scratch_folder("fails") as folder, tools_answering(grading.reference, **tools):
        ledger = Path(folder) / LEDGER_NAME
        ledger_made(ledger)
        args = copy.deepcopy(args)
        try:
            getattr(grading.reference, function)(*((ledger, *args) if ledger_first else (*args, ledger)))
        except Exception as exc:  # noqa: BLE001 (whatever it raises is the answer)
            return exc
    return None


def expect_raised_as(outcome, index: int, wanted: BaseException, what: str, why: str, where: str):
    """Step `index` (`what`) raised an error of the kind the reference raised (`wanted`); `why` it should, said."""
    step = outcome.steps[index]
    expect(step["status"] == StepStatus.RAISED and error_kind(step["error"]) == error_kind(wanted),
           why.format(error=type(wanted).__name__)
           + (f"，你的 {what} 返回了 {short(step.get('value'), 60)}" if step["status"] == StepStatus.RETURNED
              else f"：{problem(outcome, index, what)}") + where)


def returned(outcome, index: int, what: str):
    message = problem(outcome, index, what)
    if message:
        fail(message)
    return lesson3_returned(outcome, index, what)


_read = {}


def records_in(content) -> tuple:
    """(records, None) as the course's read_ledger reads this content (bytes or text; None: no file),
    or (None, the error)."""
    if isinstance(content, str):
        content = content.encode("utf-8")
    if content is None:
        return [], None
    _read_all([content])
    return copy.deepcopy(_read[content])


def keeps_earlier_records(grading) -> bool:
    """Whether the student's append_ledger, appending to a ledger with records, left them as they were (one that
    writes over them loses test_append_ledger's point; elsewhere its lost intent is said to be its doing)."""
    outcome = grading.outcome("append")
    meta = outcome.scenario.meta
    records, error = records_in(outcome.files_after.get(meta["existing"]))
    return error is None and same(records[:len(meta["old"])], meta["old"])


def records_of_each(contents) -> dict:
    """content (bytes, None: no file) -> its records as the course's read_ledger reads it, None if it cannot."""
    _read_all([c for c in contents if c is not None])
    return {c: [] if c is None else _read[c][0] for c in contents}


def _read_all(contents) -> None:
    """Read each content not read yet, all in one scratch folder (a power cut's states come by the hundred)."""
    new = [c for c in dict.fromkeys(contents) if c not in _read]
    if not new:
        return
    with scratch_folder("ledger") as folder:
        for number, content in enumerate(new):
            path = Path(folder) / f"{number}-{LEDGER_NAME}"
            path.write_bytes(content)
            try:
                _read[content] = (read_ledger(path), None)
            except Exception as exc:  # noqa: BLE001 (any error is a ledger that cannot be read)
                _read[content] = (None, exc)


def outcome_written_at(outcome, step: int, ledger: str, call_id: str):
    """Where in strace's log step `step` wrote the last byte of an outcome record of this call into the ledger (durably
    or not: the bytes it wrote there, in order), or None if it wrote none."""
    target = outcome.workdir.rstrip("/") + "/" + ledger
    writes = [(e["at"], e["data"]) for e in outcome.fs_events if isinstance(e, dict) and e.get("step") == step
              and e.get("op") == "write" and e.get("path") == target and isinstance(e.get("data"), bytes)]
    start = 0
    for line in b"".join(data for _, data in writes).split(b"\n"):
        start, end = start + len(line) + 1, start + len(line)
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "outcome" and record.get("toolUseId") == call_id:
            written = 0
            for at, data in writes:
                written += len(data)
                if written >= end:
                    return at
    return None


def of(records, call_id: str, kind: str) -> list:
    return [r for r in records or [] if isinstance(r, dict) and r.get("toolUseId") == call_id and r.get("type") == kind]


def untyped_said(records, call_id: str, kind: str) -> str:
    """Where a call has no record of `kind`: the record of it that says no kind at all, if there is one (written,
    but without its "type"), in the student's terms; "" if there is none."""
    theirs = [r for r in records or [] if isinstance(r, dict) and r.get("toolUseId") == call_id
              and r.get("type") not in ("intent", "outcome")]
    return (f"（台账里有这次调用的一条记录 {short(theirs[0], 80)}，可它没有 \"type\": \"{kind}\"：恢复代码靠 type 分辨 "
            "intent 和 outcome，认不出这一条）" if theirs else "")


def keyed(call_id: str) -> str:
    """The Message-ID an email sent with this call's id as its key carries."""
    return message_id_for(call_id)


def expected_action(reference, checkpoint: dict, records: list, service: dict) -> str:
    """The oracle: what the reference's recovery_action answers on this very input."""
    return reference.recovery_action(copy.deepcopy(checkpoint), copy.deepcopy(records), answering_lookup(service))


def reference_asks(reference, checkpoint: dict, records: list, service: dict) -> bool:
    """Whether the reference's recovery_action asks the service (lookup) on this very input."""
    asked, answer = [], answering_lookup(service)

    def lookup(name, key):
        asked.append(name)
        return answer(name, key)

    reference.recovery_action(copy.deepcopy(checkpoint), copy.deepcopy(records), lookup)
    return bool(asked)


def record_said(record: dict) -> str:
    """How the feedback tells a record apart: an outcome whose output is empty or an error says so."""
    if record.get("type") != "outcome":
        return ""
    output = str(record.get("output", ""))
    return "（output 是空字符串）" if not output else "（output 是一段错误）" if output.startswith("错误") else ""


def describe_case(checkpoint: dict, records: list, service: dict, seed: int) -> str:
    """A generated case, briefly, as the feedback shows it (the data, never the test's code)."""
    pending = checkpoint.get("pendingToolUse")
    if pending is None:
        return f"。反例：检查点里没有悬空调用，台账里有 {len(records)} 条别的调用的记录（评分种子 {seed}）"
    ours = [r.get("type") + record_said(r) for r in records if r.get("toolUseId") == pending["id"]]
    others = len(records) - len(ours)
    answer = service.get("answers", {}).get(pending["id"])
    server = ("连不上" if service.get("down") else "没有这次调用的记录" if answer is None else
              "有这次调用的记录（lookup 返回的结果文本是空字符串 \"\"，不是 None）" if answer == "" else "有这次调用的记录")
    return (f"。反例（评分器生成的、出错的输入里最小的一份）：悬空的是 {pending['name']}"
            f"（id {pending['id']}），台账里它的记录是 {ours or '（没有）'}，另有 {others} 条别的调用的记录，"
            f"服务器{server}（评分种子 {seed}）")
