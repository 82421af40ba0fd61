"""The crash matrix: every crash point killed for real, the verdicts each variant must get."""
import json
import time
import warnings
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from instruments.crash_matrix import (VERDICTS, CrashPoint, crash_at, crash_matrix, merge_columns, plot_matrix,
                                      trace, verdict)
from instruments.replay import Agent, AgentRun, CheckpointFile, check_invariants
from lesson_kernel import run_after_the_definitions


@pytest.fixture(scope="module")
def matrix(reference):
    return crash_matrix(reference.run_agent, reference.reconcile)


def places(matrix, variant):
    return [c for c in matrix.columns if (variant, c.key) in matrix.results]


def between_delivery_and_save_point_b(matrix):
    """The crash points from "send_email delivered" up to (not including) the rename that records save point B."""
    columns = places(matrix, "fixed")
    start = next(i for i, c in enumerate(columns) if c.event == {"kind": "tool", "when": "after", "name": "send_email"})
    end = next(i for i, c in enumerate(columns) if i > start and c.event["when"] == "after_rename")
    return columns[start:end]


def test_every_kind_of_crash_point_is_tried(matrix):
    kinds = {(c.event["kind"], c.event["when"]) for c in places(matrix, "fixed")}
    assert kinds == {("model", "before"), ("model", "after"), ("tool", "before"), ("tool", "after"),
                     ("save", "write"), ("save", "closed"), ("save", "before_rename"), ("save", "after_rename")}
    assert {c.save_point for c in matrix.columns if c.event["kind"] == "save"} == {"A", "B"}
    result = matrix.results[("fixed", matrix.columns[-1].key)]
    assert result.killed.signal == 9 and result.resumed.exit_code == 0


def test_fixed_reconcile_holds_everywhere(matrix):
    assert matrix.summary()["fixed"] == {"ok": len(places(matrix, "fixed"))}


def test_incident_reconcile_duplicates_exactly_between_delivery_and_save_point_b(matrix):
    duplicated = matrix.broken_points("incident", "duplicate")
    assert duplicated == between_delivery_and_save_point_b(matrix)
    assert len(duplicated) == 4  # delivered; save B half-written, written, before the rename
    assert all(matrix.results[("incident", c.key)].emails_delivered == 2 for c in duplicated)
    assert matrix.summary()["incident"] == {"ok": len(places(matrix, "incident")) - 4, "duplicate": 4}


def test_deleting_the_dangling_message_duplicates_too_and_costs_a_turn(matrix):
    assert matrix.broken_points("delete", "duplicate") == between_delivery_and_save_point_b(matrix)
    read_only_pending = [c for c in places(matrix, "delete")
                         if (matrix.results[("delete", c.key)].dangling or {}).get("name") == "read_file"]
    assert read_only_pending
    for column in read_only_pending:  # the model's decision is forgotten: it has to be asked again
        turns = {v: matrix.results[(v, column.key)].final.state["turns"] for v in ("delete", "fixed")}
        assert turns["delete"] == turns["fixed"] + 1
        assert matrix.results[("delete", column.key)].dangling_result is None


def test_saving_without_a_temporary_file_corrupts_exactly_at_mid_write(matrix):
    corrupt = matrix.broken_points("no_temp", "corrupt")
    assert corrupt and corrupt == [c for c in places(matrix, "no_temp") if c.event["when"] == "write"]
    assert all(matrix.results[("no_temp", c.key)].at_crash.problem for c in corrupt)
    assert all(matrix.verdict("no_temp", c) == "absent" for c in matrix.columns if "rename" in c.event["when"])
    # The atomic save survives the same crash points.
    assert all(matrix.verdict("fixed", c) == "ok" for c in corrupt)


def test_table_text_and_html(matrix):
    rows = matrix.rows()
    assert len(rows) == len(matrix.columns)
    incident_row = next(r for r, c in zip(rows, matrix.columns) if c.event.get("name") == "send_email"
                        and c.event["when"] == "after")
    assert incident_row["incident"] == {"verdict": "duplicate", "emails": 2, "turns": 10}
    text = matrix.to_text()
    assert "send_email 执行完、结果还没存" in text and "✗ 高影响操作执行了两次（2 封" in text
    assert f"{len(matrix.columns)} 个崩溃点" in text
    page = matrix._repr_html_()
    broken = [c for c in matrix.columns if any(matrix.verdict(v, c) not in ("ok", "absent") for v in matrix.variants)]
    assert page.count("<tr>") == len(broken) + 1 and "verdict-corrupt" in page
    assert f"其余 {len(matrix.columns) - len(broken)} 个崩溃点" in page


def test_what_a_notebook_saves_of_the_matrix_is_a_few_kb(matrix):
    """The cell's output is its text/plain and text/html: the summary and the broken rows, not every result."""
    saved = len(repr(matrix).encode()) + len(matrix._repr_html_().encode())
    assert saved < 12_000, saved
    assert repr(matrix) == "\n".join(matrix.summary_lines())


def test_progress_is_one_line_rewritten_in_place(capsys):
    from instruments.crash_matrix import Progress
    progress = Progress(time.monotonic(), every=0)
    for done in range(1, 4):
        progress(done, 3)
    out = capsys.readouterr().out
    assert out.count("\r") == 3 and out.endswith("3/3 组，已用 0 秒\n") and out.count("\n") == 1


def test_picture_has_chinese_labels_and_no_missing_glyphs(matrix, tmp_path):
    figure = plot_matrix(matrix)
    assert isinstance(figure, Figure)
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(matrix.variants.values())
    assert "CJK" in ax.get_yticklabels()[0].get_fontfamily()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        figure.savefig(tmp_path / "matrix.png")
    image = figure.axes[0].images[0].get_array()
    assert image.shape == (len(matrix.variants), len(matrix.columns))


def test_matrix_time_is_recorded(matrix):
    assert 0 < matrix.seconds < 300  # the figure to quote comes from `make crash-matrix`, not from here


def test_a_reconcile_that_forgets_the_tool_result_is_caught(reference):
    agent = Agent(reference.run_agent, lambda cp: {**cp, "pendingToolUse": None})
    point = next(p for p in trace(agent) if p.event == {"kind": "tool", "when": "before", "name": "read_file"})
    (result,) = crash_at(point, agent)
    assert "400" in result.resumed.error or "tool_result" in result.resumed.error
    assert verdict(result) == "unpaired"


def test_turns_past_max_turns_break_the_invariant():
    state = {"version": 1, "task": "t", "turns": 41, "tokensUsed": 0, "pendingToolUse": None,
             "messages": [{"role": "user", "content": "t"}, {"role": "assistant", "content": [{"type": "text",
                                                                                            "text": "好"}]}]}
    run = AgentRun(pid=1, exit_code=0)
    agent = Agent(lambda task, client=None, path=None: None, lambda cp: cp, task="帮我整理这周的会议纪要")
    checks = check_invariants(agent, CheckpointFile(None), run, CheckpointFile(state), [], expect_email=False)
    assert checks["turns_within_limit"] is False and checks["task_finished"] is True


def test_a_pathlib_save_has_the_same_crash_points(reference):
    def save_with_pathlib(state, path):
        temporary = Path(path).with_suffix(".tmp")
        temporary.write_text(json.dumps(state), encoding="utf-8")
        temporary.replace(path)

    points = trace(Agent(reference.run_agent, reference.reconcile, save_with_pathlib))
    first_save = [p.event for p in points if p.event["kind"] == "save"][:4]
    assert first_save == [{"kind": "save", "when": "write", "file": "temp"},
                          {"kind": "save", "when": "closed", "file": "temp"},
                          {"kind": "save", "when": "before_rename"}, {"kind": "save", "when": "after_rename"}]


def test_columns_merge_in_run_order():
    def point(i, turn, when):
        return CrashPoint(i, {"kind": "save", "when": when}, turn, "A", (turn, "save A", when, 1))

    full = [point(0, 1, "write"), point(1, 1, "closed"), point(2, 1, "before_rename"), point(3, 2, "write")]
    short = [point(0, 1, "write"), point(1, 1, "closed"), point(2, 2, "write")]
    assert [c.key for c in merge_columns([short, full])] == [c.key for c in full]
    assert set(VERDICTS) >= {"ok", "duplicate", "corrupt", "absent"} and verdict(None) == "absent"


def test_the_matrix_is_also_right_on_one_worker(reference):
    started = time.monotonic()
    agent = Agent(reference.run_agent, reference.incident_reconcile)
    points = [p for p in trace(agent) if p.turn == 9]
    results = [crash_at(p, agent)[0] for p in points]
    assert [verdict(r) for r in results].count("duplicate") == 4
    assert time.monotonic() - started < 60


def test_crash_matrix_and_widget_from_a_real_kernel(tmp_path):
    """Worker processes and agent processes forked from ipykernel, with the lesson's functions in __main__."""
    (cell,) = run_after_the_definitions([
        "import json, psutil\n"
        "from instruments.crash_matrix import run_jobs, trace, verdict\n"
        "from instruments.replay import Agent\n"
        "from instruments.widgets import crash_explorer\n"
        "agents = [Agent(run_agent, reconcile), Agent(run_agent, incident_reconcile)]\n"
        "done = run_jobs([(p, agents, 20) for p in trace(agents[0]) if p.turn == 9], workers=2)\n"
        "view = crash_explorer(run_agent, reconcile)\n"
        "print(json.dumps({'verdicts': [[verdict(r) for r in results] for results in done],\n"
        "                  'widget_holds': 'ce-holds' in view.children[2].value,\n"
        "                  'children': len(psutil.Process().children(recursive=True))}))"], tmp_path, timeout=120)
    printed = json.loads(cell.outputs[-1]["text"])
    fixed, incident = zip(*printed["verdicts"])
    assert set(fixed) == {"ok"} and incident.count("duplicate") == 4
    assert printed["widget_holds"] and printed["children"] == 0


def test_a_reconcile_that_hangs_is_cut_off(reference):
    def stuck(cp):
        while True:
            time.sleep(0.05)

    agent = Agent(reference.run_agent, stuck)
    point = next(p for p in trace(agent) if p.event == {"kind": "tool", "when": "after", "name": "read_file"})
    started = time.monotonic()
    (result,) = crash_at(point, agent, timeout=1)
    assert result.resumed.timed_out and result.resumed.signal == 9
    assert verdict(result) == "timeout" and "超时" in result.report()
    assert result.invariants["task_finished"] is False
    assert time.monotonic() - started < 10
