"""The grader's parts on their own: what the child sends back, how a damaged notebook is
read, which lines count as a leak, what the scenarios draw."""
import copy
import json
import math
import random

import nbformat
import pytest

from autograder.child import NotPlain, plain
from autograder.hidden_tests import generated, scenarios
from autograder.scenario_run import READ_ONLY_TOOL_NAMES
from autograder.leaks import HIDDEN_TESTS, PrivateLines, private_lines
from autograder.notebook_code import RELEASE_NOTEBOOK, demo_definitions, load_module, load_reference
from autograder.submission import (course_layout, definitions_only, drop_duplicate_ids, parse_notebook_text,
                                   restore_missing_cells, submission_from_notebook)


OBVIOUS_VERBS = ("send", "delete", "remove", "drop", "transfer", "pay", "charge", "deploy", "cancel", "post",
                 "write", "update", "create", "email", "mail", "exec", "run", "kill")  # what a deny-list names first


class AlwaysEqual:
    def __eq__(self, other):
        return True


class Sneaky(str):
    def __eq__(self, other):
        return True

    def __str__(self):
        return "C"


class Lying(dict):
    def items(self):
        return [("is_error", True)]


def test_plain_copies_only_json_data_and_sees_through_subclasses():
    assert plain({"a": (1, 2.5, None, True), "b": ["x"]}) == {"a": [1, 2.5, None, True], "b": ["x"]}
    copied = plain(Sneaky("Z"))
    assert type(copied) is str and copied == "Z"
    lying = Lying(is_error=False, content="x")
    assert plain(lying) == {"is_error": False, "content": "x"}
    assert type(plain(True)) is bool and type(plain(1)) is int
    cycle = []
    cycle.append(cycle)
    for bad in (AlwaysEqual(), {1: "x"}, {"a": {1, 2}}, math.nan, cycle):
        with pytest.raises(NotPlain):
            plain(bad)


def test_broken_json_is_repaired_or_salvaged_or_refused():
    text = RELEASE_NOTEBOOK.read_text(encoding="utf-8")
    repaired, notes = parse_notebook_text(text.rstrip()[:-1].rstrip() + ",\n}")
    assert len(repaired.cells) == len(json.loads(text)["cells"]) and "已自动修复" in notes[0]
    salvaged, notes = parse_notebook_text(text[: len(text) // 2])
    assert 0 < len(salvaged.cells) < len(json.loads(text)["cells"]) and "只找回了" in notes[0]
    nothing, notes = parse_notebook_text("这不是 JSON")
    assert nothing is None and "不是合法的 JSON" in notes[0]


def test_cells_the_student_added_keep_only_definitions():
    kept = definitions_only('import os\ndef helper():\n    return 1\nSAFE = frozenset(["read_file"])\n'
                            'print("hi")\nstate = run_agent("task")\nfor i in range(3):\n    pass\n')
    assert "def helper" in kept and "SAFE = frozenset" in kept and "import os" in kept
    assert "print" not in kept and "run_agent" not in kept and "for i" not in kept
    assert definitions_only("def broken(:\n") == ""


def test_the_notebooks_own_helpers_are_defined_without_running_its_demos():
    kept = demo_definitions('import json\nimport anthropic\nfrom instruments.widgets import viewer\n'
                            'DEMO_DIR = Path(tempfile.mkdtemp())\nclient = make_client()\nLIMIT = 3\n'
                            'path = DEMO_DIR / "x.json"\nprint("演示")\nrun_agent("task")\n'
                            'def describe(message):\n    return str(message)\nclass Crash(Exception):\n    pass\n')
    assert "def describe" in kept and "class Crash" in kept and "LIMIT = 3" in kept
    assert "import json" in kept and "import anthropic" in kept
    for left_out in ("instruments", "mkdtemp", "make_client", "DEMO_DIR", "print", "run_agent"):
        assert left_out not in kept, left_out
    helpers = {name: source for name, source in course_layout().definitions if name.startswith("demo-")}
    assert any("def describe" in source for source in helpers.values())
    module = load_module([nbformat.v4.new_code_cell(source) for name, source in course_layout().definitions
                          if source is not None], "helpers")  # defining them all runs nothing and raises nothing
    assert callable(module.describe) and not hasattr(module, "DEMO_DIR")


def test_duplicates_and_deleted_cells_are_put_right_for_nbgrader():
    blank = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    ids = lambda nb: [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]  # noqa: E731
    reconcile = ids(notebook).index("reconcile")
    first = nbformat.from_dict(json.loads(json.dumps(notebook.cells[reconcile])))
    first.source = "# an older attempt"
    notebook.cells.insert(reconcile, first)
    del notebook.cells[ids(notebook).index("test_reconcile")]
    del notebook.cells[ids(notebook).index("recovery_action")]
    notes = submission_from_notebook(notebook).notes
    assert any("出现了 2 次" in n for n in notes) and any("recovery_action" in n for n in notes)
    drop_duplicate_ids(notebook)
    restore_missing_cells(notebook, blank)
    graded = [i for i in ids(notebook) if i]
    assert graded == [i for i in ids(blank) if i]
    older = notebook.cells[reconcile]
    assert older.source == "# an older attempt" and "nbgrader" not in older.metadata


def test_leak_check_knows_the_hidden_tests_and_the_solution_but_not_feedback():
    hidden_line = next(line.strip() for path in HIDDEN_TESTS.glob("test_*.py")
                       for line in path.read_text(encoding="utf-8").splitlines() if len(line.strip()) > 40)
    assert private_lines().hidden_test_code_in(f"<pre>{hidden_line}</pre>") == [hidden_line]
    assert private_lines().solution_lines and private_lines().any_in(next(iter(private_lines().solution_lines)))
    assert private_lines().any_in("✘ 对账之后 pendingToolUse 为 None，version、task、turns、tokensUsed 原样不动，并返回检查点（0 / 1 分）") == []


def test_leak_check_remembers_clean_lines_but_still_finds_a_private_line_anywhere():
    lines = PrivateLines()
    hidden_line = sorted(lines.hidden_lines)[0]
    page = "<style>body { margin: 0 }</style>\n<p>本格得分：3 / 5</p>"
    assert lines.any_in(page) == [] and lines.any_in(page) == []  # the second time from what it remembers
    assert lines.any_in(page + "\n<pre>" + hidden_line.replace("<", "&lt;") + "</pre>") == [hidden_line]
    assert lines.any_in(page.replace("3 / 5", "3 / 5 " + hidden_line)) == [hidden_line]  # inside a known line
    assert lines.any_in(page + hidden_line) == [hidden_line]  # a known line, and more after it
    assert lines.hidden_test_code_in(page + "\r\n" + hidden_line + "\r\n") == [hidden_line]


def test_scenarios_are_drawn_from_the_seed_and_never_use_the_defaults():
    first, again, other = (scenarios.build(40, random.Random(seed)) for seed in (7, 7, 8))
    assert {n: (s.steps, s.files, s.meta) for n, s in first.items()} == \
        {n: (s.steps, s.files, s.meta) for n, s in again.items()}
    assert first["agent_fresh"].meta["file"] != other["agent_fresh"].meta["file"]
    samples = {scenarios.load_sample(name)["task"] for name in ("cpA", "cpB", "cpC")}
    for name, scenario in first.items():
        if name.startswith("agent_"):
            assert "/" in scenario.meta["file"] and scenario.watch == scenario.meta["file"] != "checkpoint.json"
            assert scenario.steps[0]["kwargs"].get("client") == (None if name == "agent_resume"
                                                                  else scenarios.CLIENT)
            assert scenario.meta["task"] not in samples
            if scenario.meta["checkpoint"]:  # resumed with the task in other words than the checkpoint's
                assert scenario.meta["task"] != scenario.meta["checkpoint"]["task"]
    tools = [cp["pendingToolUse"]["name"] for cp in first["reconcile_unheard_of"].meta["checkpoints"]]
    assert len(tools) == 4 and not set(tools) & READ_ONLY_TOOL_NAMES


def test_task_wordings_keep_the_scripted_model_on_its_plan():
    """The offline model picks its plan by the words 邮件 (email) and 纪要 (meeting notes)."""
    assert len(set(scenarios.MEETING_TASKS)) >= 10 and len(set(scenarios.EMAIL_TASKS)) >= 8
    assert all("纪要" in task and "邮件" not in task for task in scenarios.MEETING_TASKS)
    assert all("邮件" in task for task in scenarios.EMAIL_TASKS)


def test_unheard_of_tools_defeat_each_shortcut():
    """Each kind of made-up tool is drawn so that one shortcut loses its points whatever the seed draws."""
    read_only = tuple(READ_ONLY_TOOL_NAMES)
    names = {kind: [name for name, _ in generated.examples(generated.DANGLING[kind], 40, 5)]
             for kind in generated.UNHEARD_OF}
    assert all(name.startswith(read_only) for name in names["begins_with_read_only"])  # a prefix test says read-only
    assert all(any(tool in name for tool in read_only) and not name.startswith(read_only)
               for name in names["has_read_only_inside"])  # so does a substring test
    assert not [name for name in generated.UNUSUAL_VERBS  # a deny-list of the obvious verbs lets these through
                if any(word in name for word in (*OBVIOUS_VERBS, *read_only))]
    assert all(name not in READ_ONLY_TOOL_NAMES | {"send_email"} for kind in names for name in names[kind])
    assert len(set(names["made_up"])) > 20


def test_drawn_inputs_are_what_the_seed_says():
    """The same seed draws the same values; another seed other ones; the simplest value, the same for every
    seed, is never among them."""
    strategy = generated.checkpoints(generated.DANGLING["grep"])
    first, again, other = (generated.examples(strategy, 5, seed) for seed in (3, 3, 4))
    assert first == again and first != other
    simplest = [[cp["task"], len(cp["messages"])] for cp in first + other]
    assert len({json.dumps(s, ensure_ascii=False) for s in simplest}) > 5


@pytest.mark.parametrize("kind", generated.BROKEN_KINDS)
def test_every_kind_of_broken_file_is_refused_by_the_reference(kind, tmp_path):
    reference = load_reference()
    for _, content in generated.examples(generated.broken_files(kind), 10, 9):
        path = tmp_path / "checkpoint.json"
        if content == generated.FOLDER:
            path.mkdir()
        else:
            path.write_bytes(content)
        with pytest.raises(IsADirectoryError if kind == "folder" else ValueError):
            reference.load_checkpoint(path)
        path.rmdir() if path.is_dir() else path.unlink()


def test_recovery_cases_say_nothing_but_the_dangling_call():
    """Over many seeds, the reference's answer goes with every task wording, history length and position."""
    reference = load_reference()
    seen = {}
    for seed in range(20):
        cases = scenarios.build(40, random.Random(seed))["recovery_action"].meta["cases"]
        answers = [reference.recovery_action(copy.deepcopy(cp)) for cp in cases]
        assert set(answers) == {"continue", "rerun", "is_error"}
        for position, (cp, answer) in enumerate(zip(cases, answers)):
            wording = "邮件" in cp["task"]
            seen.setdefault(answer, set()).update({("wording", wording), ("position", position % 3),
                                                   ("long", len(cp["messages"]) > 5),
                                                   ("block_task", isinstance(cp["messages"][0]["content"], list))})
            if cp["pendingToolUse"]:  # the dangling call is the last message's tool_use, with the same id
                last = cp["messages"][-1]["content"][-1]
                assert last["type"] == "tool_use" and last["id"] == cp["pendingToolUse"]["id"]
    every = {(kind, value) for kind, values in (("wording", (True, False)), ("position", (0, 1, 2)),
                                                ("long", (True, False)), ("block_task", (True, False)))
             for value in values}
    assert all(kinds == every for kinds in seen.values()), seen


def test_a_counterexample_quotes_no_line_of_the_hidden_tests():
    """The feedback shows drawn checkpoints as JSON: none may look like a leak of the hidden tests' code."""
    from autograder.hidden_tests.shrink import counterexample

    for seed in range(3):
        built = scenarios.build(40, random.Random(seed))
        drawn = built["recovery_action"].meta["cases"] + built["reconcile_unheard_of"].meta["checkpoints"]
        tasks = [{"task": task} for task in scenarios.MEETING_TASKS + scenarios.EMAIL_TASKS]
        for cp in drawn + tasks:
            assert private_lines().any_in(counterexample(cp, seed)) == [], cp
