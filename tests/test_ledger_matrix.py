"""Lesson 4's crash matrix: at every crash point the ledger version duplicates nothing and knows every outcome."""
import re
import warnings

import nbformat
import pytest

from instruments.crash_matrix import crash_at, plot_matrix, trace, verdict
from instruments.ledger_matrix import ledger_matrix, ledger_verdict, unknown_outcomes
from instruments.replay import Agent
from autograder.lessons import lesson
from autograder.notebook_code import load_reference

LESSON4_NOTEBOOK = lesson("lesson04").source_notebook


@pytest.fixture(scope="module")
def reference04():
    return load_reference(lesson("lesson04"))


@pytest.fixture(scope="module")
def matrix(reference04):
    return ledger_matrix(reference04.run_agent, reference04.reconcile)


def places(matrix, variant):
    return [c for c in matrix.columns if (variant, c.key) in matrix.results]


def send_email_pending(matrix, variant):
    """The crash points whose checkpoint on disk holds a dangling send_email."""
    return [c for c in places(matrix, variant)
            if (matrix.results[(variant, c.key)].dangling or {}).get("name") == "send_email"]


def test_the_ledger_version_duplicates_nothing_and_knows_every_outcome(matrix):
    assert set(matrix.variants) == {"ledger", "incident", "lesson3"}
    assert matrix.summary()["ledger"] == {"ok": len(places(matrix, "ledger"))}
    for column in places(matrix, "ledger"):
        result = matrix.results[("ledger", column.key)]
        assert result.emails_delivered == 1 and unknown_outcomes(result) == 0, column.label
    # The crashes that leave send_email dangling are the ones the ledger answers.
    answered = [matrix.results[("ledger", c.key)].dangling_result for c in send_email_pending(matrix, "ledger")]
    assert answered and all(r and r["is_error"] is False and r["content"].startswith("已发送") for r in answered)


def test_lesson3s_reconcile_duplicates_nothing_but_leaves_outcomes_unknown(matrix):
    summary = matrix.summary()["lesson3"]
    assert "duplicate" not in summary and summary["unknown"] > 0
    assert matrix.broken_points("lesson3", "unknown") == send_email_pending(matrix, "lesson3")
    # From save point A's rename to save point B's: intent (2), the call (2), outcome (2), save B (3). The
    # notebook quotes this figure.
    assert summary["unknown"] == 10
    for column in matrix.broken_points("lesson3", "unknown"):
        result = matrix.results[("lesson3", column.key)]
        assert verdict(result) == "ok" and ledger_verdict(result) == "unknown"  # the one thing lesson 4 adds
        assert result.dangling_result["is_error"] is True and result.emails_delivered == 1


def test_the_incident_duplicates_where_the_email_left_and_no_outcome_was_kept(matrix):
    duplicated = matrix.broken_points("incident", "duplicate")
    events = [c.event for c in duplicated]
    assert events == [{"kind": "tool", "when": "after", "name": "send_email"},
                      {"kind": "ledger", "when": "write", "file": "ledger"}]  # outcome appended halfway: torn
    assert all(matrix.results[("incident", c.key)].emails_delivered == 2 for c in duplicated)
    assert matrix.summary()["incident"] == {"ok": len(places(matrix, "incident")) - 2, "duplicate": 2}


def test_the_ledgers_appends_are_crash_points_of_their_own(matrix):
    appends = [c for c in matrix.columns if c.event["kind"] == "ledger"]
    assert [c.event["when"] for c in appends] == ["write", "closed"] * 2  # intent, then outcome of send_email
    assert all(c.label.endswith(("效果台账：追加写到一半", "效果台账：追加写完")) for c in appends)
    kinds = {(c.event["kind"], c.event["when"]) for c in matrix.columns}
    assert {("model", "before"), ("tool", "after"), ("save", "before_rename")} <= kinds


def test_table_and_picture(matrix, tmp_path):
    text = matrix.to_text()
    assert "不重复，但结果未知（is_error）" in text and f"{len(matrix.columns)} 个崩溃点 × 3 个变体" in text
    assert "verdict-unknown" in matrix._repr_html_()
    figure = plot_matrix(matrix)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing Chinese glyph is a warning
        figure.savefig(tmp_path / "ledger-matrix.png")
    assert figure.axes[0].images[0].get_array().shape == (3, len(matrix.columns))


def test_a_ledger_without_the_key_is_caught(reference04):
    """The same ledger, sending without the idempotency key: the lookup finds nothing and the email goes twice."""
    namespace = load_reference(lesson("lesson04")).__dict__

    def keyless(call, ledger):
        namespace["append_ledger"](ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"],
                                            "input": call["input"]})
        output = namespace["execute_tool"](call["name"], call["input"])
        namespace["append_ledger"](ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
        return output

    namespace["execute_with_ledger"] = keyless
    for agent, emails, judged in ((Agent(namespace["run_agent"], namespace["reconcile"]), 2, "duplicate"),
                                  (Agent(reference04.run_agent, reference04.reconcile), 1, "ok")):
        point = next(p for p in trace(agent) if p.event == {"kind": "tool", "when": "after", "name": "send_email"})
        (result,) = crash_at(point, agent)
        assert (result.emails_delivered, ledger_verdict(result)) == (emails, judged), result.report()


def test_the_notebooks_snippet_uses_names_that_exist(reference04):
    """Lesson 4 shows the matrix as code to paste into a new cell; its imports and arguments must be real."""
    cell = next(c for c in nbformat.read(str(LESSON4_NOTEBOOK), as_version=4).cells if c.get("id") == "crash-matrix")
    (snippet,) = re.findall(r"```python\n(.*?)```", cell.source, flags=re.S)
    imports = "\n".join(line for line in snippet.splitlines() if line.startswith(("from ", "import ")))
    exec(imports, {})
    names = set(re.findall(r"(\w+)=(\w+)", snippet))
    assert names == {("incident_reconcile", "incident_reconcile"), ("lesson3_reconcile", "lesson3_reconcile")}
    assert all(hasattr(reference04, name) for _, name in names)
