"""The grader's parts on their own: what the child sends back, how a damaged notebook is
read, which lines count as a leak, what the scenarios draw."""
import copy
import importlib
import json
import math
import random
import stat
from types import SimpleNamespace

import nbformat
import pytest

from autograder.child import (LEFT_ARMED, LEFT_RUNNING, LEFT_SCHEDULED, NotPlain, _left_running, _stand_in_error, plain,
                              python_value)
from autograder.folder import Folder
from course import assistant_message, execute_tool, load_sample, request_params
from course.checks import LONG_CHECKPOINT_BYTES, TOOL_OUTPUT_SHAPES, lengthened, unprivileged
from course.model import (ENDING_SHAPES, TOOL_CALL_SHAPES, answer, check_tool_pairing, scripted_client, scripted_reply,
                          shaped)
from autograder.hidden_tests import generated, scenarios
from autograder.hidden_tests.crashes import sized_without_writes
from autograder.hidden_tests.test_save_load import (check_no_leaks, descriptors_left_open, leak_advice, save_leftovers,
                                                     temporary_elsewhere)
from autograder.scenario_run import READ_ONLY_TOOL_NAMES
from autograder.leaks import HIDDEN_TESTS, KEY_LENGTH, PrivateLines, private_lines
from autograder.lessons import lesson
from autograder.notebook_code import (RELEASE_NOTEBOOK, SANDBOX_MODULES, demo_definitions, demo_value,
                                     full_marks_notebook, installed_modules_in_use, load_module, load_reference,
                                     names_changed)
from autograder.guise import at_cgroup_root, kernel_history
from autograder.submission import (acting_functions, course_layout, definitions_only, drop_duplicate_ids,
                                   parse_notebook_text, restore_missing_cells, sandbox_cells, submission_from_notebook)


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


def test_a_stand_in_raises_the_references_error_as_its_own_type():
    """The grader's reconcile failing on the student's data says TypeError as the notebook's would, not a ValueError
    whose text is "TypeError: ..."; a full disk (no type) is the default's; a type built otherwise falls back to it."""
    error = _stand_in_error({"error": "'NoneType' object is not subscriptable", "type": "TypeError"}, ValueError)
    assert type(error) is TypeError and str(error) == "'NoneType' object is not subscriptable"
    assert type(_stand_in_error({"error": "[Errno 28] No space left on device"}, OSError)) is OSError
    assert type(_stand_in_error({"error": "bad", "type": "UnicodeDecodeError"}, ValueError)) is ValueError
    assert type(_stand_in_error({"error": "x", "type": "SystemExit"}, ValueError)) is ValueError  # no Exception


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


def test_what_a_step_left_running_is_read_from_how_its_processes_ended():
    """Exit statuses as waitpid gives them: code << 8, or the signal's number."""
    ended, lingered, interrupted = 0, LEFT_RUNNING << 8, 2  # exit 0; exit LEFT_RUNNING; killed by SIGINT
    assert _left_running(ended, ended) == []
    assert _left_running(lingered, ended) == ["threads"]
    assert _left_running(ended, lingered) == ["processes"]
    assert _left_running(lingered, lingered) == ["threads", "processes"]
    assert _left_running(ended, interrupted) == ["processes"], "pid 1 made to end early took its orphans with it"
    assert _left_running(lingered, None) == ["threads"] and _left_running(9, None) == []  # no pid 1 to ask
    assert _left_running(LEFT_SCHEDULED << 8, ended) == ["scheduled"]  # on the kernel's event loop, or an alarm
    # armed in the interpreter (autograder.armed): a bit for each kind
    assert _left_running((LEFT_ARMED + 0b0101) << 8, lingered) == ["audit_hook", "tracer", "processes"]
    assert _left_running((LEFT_ARMED + 0b1010) << 8, ended) == ["gc_callback", "reviving_garbage"]


def test_a_kernel_s_cgroup_names_none_of_the_graders():
    """/proc/self/cgroup as in a kernel's container of its own: each hierarchy at its root, on cgroup v2 and v1."""
    assert at_cgroup_root("0::/user.slice/grader-pids-4321/zygote\n") == "0::/\n"
    assert at_cgroup_root("12:pids:/grader\n1:name=systemd:/a:b\n") == "12:pids:/\n1:name=systemd:/\n"


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
    assert "client = make_client()" in kept  # the notebook's client, as its first cell makes it
    for left_out in ("instruments", "mkdtemp", "DEMO_DIR", "print", "run_agent"):
        assert left_out not in kept, left_out
    helpers = {name: source for name, source in course_layout().definitions if name.startswith("demo-")}
    assert any("def describe" in source for source in helpers.values())
    assert not any("crashing_client" in source for source in helpers.values())  # a demo patches it afterwards
    module = load_module([nbformat.v4.new_code_cell(source) for name, source in course_layout().definitions
                          if source is not None], "helpers")  # defining them all runs nothing and raises nothing
    assert callable(module.describe) and not hasattr(module, "DEMO_DIR")
    assert module.client.api_key == "offline" and "DEMO_DIR" in course_layout().notebook_only


@pytest.mark.parametrize("assignment", ["lesson03", "lesson04"])
def test_the_notebooks_describe_works_where_the_grader_defines_it(assignment):
    """describe() calls what its demo cell imported (lesson 4: from the course runtime, which the sandbox has)."""
    layout = course_layout(lesson(assignment).source_notebook)
    module = load_module([nbformat.v4.new_code_cell(source) for name, source in layout.definitions
                          if source is not None], "helpers")
    for message in load_sample("cpC")["messages"]:  # text, tool_use and tool_result blocks
        assert message["role"] in module.describe(message)


def test_a_demo_value_changed_later_is_not_defined():
    """A name is defined from a demo only when the grader can hold it as the notebook does."""
    demos = ('crashing = make_client()\ncrashing.messages.create = None\nsample = load_sample("cpA")\n'
             'for sample in ("x",):\n    pass\nclient = make_client()\n')
    changed = names_changed(demos, demo_value)
    assert changed == {"crashing", "sample"}
    assert demo_definitions(demos, frozenset(changed)) == "client = make_client()"


def test_an_added_cell_keeps_what_its_if_and_try_define_and_every_lambda():
    kept = definitions_only('if os.name == "nt":\n    def sync(f):\n        pass\nelse:\n    def sync(f):\n'
                            '        os.fsync(f)\n')
    assert kept.count("def sync") == 2 and kept.startswith('if os.name == "nt":')
    kept = definitions_only("try:\n    sync = os.fdatasync\nexcept AttributeError:  # macOS\n    sync = os.fsync\n")
    assert "sync = os.fdatasync" in kept and "except AttributeError" in kept
    kept = definitions_only('if DEBUG:\n    print("x")\n    def log(m):\n        pass\nelse:\n    run_agent("t")\n')
    assert "def log" in kept and "print" not in kept and "run_agent" not in kept
    assert definitions_only('if True:\n    print("x")\ntry:\n    run_agent("t")\nexcept Exception:\n    pass\n') == ""
    assert definitions_only('if run_agent("t"):\n    X = 1\n') == ""  # the test itself would run the agent
    assert definitions_only('say = lambda *p: print("[agent]", *p)\n') == 'say = lambda *p: print("[agent]", *p)'
    assert definitions_only("go = lambda x=run_agent('t'): x\n") == ""  # a default runs when it is defined
    assert definitions_only("now = (lambda: run_agent('t'))()\n") == ""  # and so does a lambda called at once
    assert definitions_only('try:\n    X = 1\nfinally:\n    print("x")\n') == "try:\n    X = 1\nfinally:\n    pass"
    assert definitions_only("CLIENT = make_client()\n") == "CLIENT = make_client()"
    assert definitions_only("state = run_agent('t')\n") == ""


def test_an_installed_library_is_imported_where_a_definition_uses_it():
    """An added cell's import of a library the sandbox has (installed with the interpreter) is kept when a function,
    a class or an answer cell uses it; an experiment's library, one not installed, or the course's instruments not."""
    cell = ("from typing_extensions import TypedDict\nimport numpy as np\nimport not_a_module_anywhere as gone\n"
            "from instruments import widgets\nclass Checkpoint(TypedDict):\n    turns: int\n"
            "def log(x):\n    return gone.dumps(widgets.show(x))\nnp.random.seed(0)\n")
    in_use = installed_modules_in_use([(cell, False), ("Shape = TypedDict('Shape', {})", True)])
    assert in_use == {"typing_extensions"}
    assert installed_modules_in_use([(cell.replace("np.random.seed(0)", "def f():\n    np.random.seed(0)"), False)]) \
        == {"typing_extensions", "numpy"}
    kept = definitions_only(cell, modules=SANDBOX_MODULES | in_use)
    assert "from typing_extensions import TypedDict" in kept and "class Checkpoint" in kept
    assert "import numpy" not in kept and "not_a_module_anywhere" not in kept and "instruments" not in kept
    assert "typing_extensions" not in definitions_only(cell)  # the default: the standard library and the course


def test_a_name_the_grader_leaves_undefined_is_explained():
    notebook = full_marks_notebook()
    place = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "imports")
    notebook.cells.insert(place + 1, nbformat.v4.new_code_cell("print('experiment')"))
    notebook.cells.insert(place + 2, nbformat.v4.new_code_cell(
        "state = run_agent('x')\ndef first_turns():\n    return state['turns'], DEMO_DIR\n"))
    submission = submission_from_notebook(notebook)
    assert [(after, number) for after, _, number in submission.extra] == [("imports", 2)]
    assert [cell["name"] for cell in sandbox_cells(submission)][1] == "imports+2"
    added, demo = submission.notes
    assert "你在 imports 后面加的第 2 个单元格里定义 state 的语句评分时没有运行" in added and "NameError" in added
    assert "你的代码用到了 DEMO_DIR" in demo and "演示单元格" in demo
    assert not submission_from_notebook(full_marks_notebook()).notes


def test_an_added_cell_keeps_what_fills_its_names_but_no_demo():
    """Issue 19 §5: a table filled in a loop, by update() or in a with works in the notebook, so it is kept; running
    the agent is not, also through a function of the student's that does."""
    kept = definitions_only('ACTIONS = {}\nfor tool in READ_ONLY_TOOLS:\n    ACTIONS[tool] = "rerun"\n    print(tool)\n'
                            'ACTIONS.update(grep="rerun")\nCOUNT = 0\nCOUNT += 1\nwith open("log.txt") as f:\n'
                            '    LOG = f.read()\nwhile COUNT < 3:\n    COUNT += 1\nmatrix\n')
    assert "ACTIONS[tool] = 'rerun'" in kept and "print" not in kept and "ACTIONS.update" in kept
    assert "COUNT += 1" in kept and "LOG = f.read()" in kept and "while COUNT < 3" in kept and "matrix" not in kept
    assert definitions_only("while True:\n    X = run_agent('t')\n    break\n") == ""  # a while is kept whole only
    assert definitions_only("with MailServer():\n    X = 1\n") == ""
    cell = "def try_it():\n    return run_agent('t')\nstate = try_it()\ntry_it()\n"
    assert definitions_only(cell, acting_functions([cell])) == "def try_it():\n    return run_agent('t')"
    shown = "def show(table):\n    print(table)\n    return table\nT = show({})\n"  # print alone is no demo
    assert "T = show({})" in definitions_only(shown, acting_functions([shown]))
    # a factory of handlers runs none of them (probe 14a); a closure it calls or hands to a thread does run
    made = "def make():\n    def go(p):\n        return execute_tool(p)\n    return {'go': go}\nH = make()\n"
    assert "H = make()" in definitions_only(made, acting_functions([made]))
    for demo in ("def demo():\n    def go():\n        run_agent('t')\n    go()\nX = demo()\n",
                 "def demo():\n    def go():\n        run_agent('t')\n    threading.Thread(target=go).start()\nX = demo()\n",
                 "def demo():\n    return (lambda: run_agent('t'))()\nX = demo()\n"):
        assert "X = demo()" not in definitions_only(demo, acting_functions([demo]))


def test_a_change_the_grader_leaves_out_is_explained():
    notebook = full_marks_notebook()
    place = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "imports")
    notebook.cells.insert(place + 1, nbformat.v4.new_code_cell(
        'ACTIONS = {}\nfor tool in load_checkpoint("tools.json")["tools"]:\n    ACTIONS[tool] = "rerun"\n'))
    reconcile = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "recovery_action")
    reconcile.source = "def recovery_action(cp):\n    return ACTIONS[cp['pendingToolUse']['name']]\n"
    notes = submission_from_notebook(notebook).notes
    assert len(notes) == 1 and "里改动 ACTIONS 的语句" in notes[0] and "不是你的代码写错了" in notes[0]


def test_the_kernel_history_is_the_notebooks_cells_up_to_the_running_one():
    submission = submission_from_notebook(full_marks_notebook())
    code = [c.source for c in full_marks_notebook().cells if c.cell_type == "code"]
    assert submission.history == code
    cells = {cell["name"]: cell for cell in sandbox_cells(submission)}
    assert code[cells["reconcile"]["ran"] - 1] == cells["reconcile"]["source"]
    namespace = {}
    kernel_history(namespace, None, code[:cells["reconcile"]["ran"]])
    assert namespace["In"][-1] == cells["reconcile"]["source"] and namespace["_ih"] is namespace["In"]
    assert len(namespace["In"]) == cells["reconcile"]["ran"] + 1 and namespace["_i1"] == code[0]


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
    # looked up by their first characters: two in one line are both found, the start of a third alone is not one
    first, second, third = sorted(lines.hidden_lines)[:3]
    assert lines.hidden_test_code_in(f"{third[:-1]} {first}{second} {third[:KEY_LENGTH]}") == sorted({first, second})


def test_scenarios_are_drawn_from_the_seed_and_never_use_the_defaults():
    first, again, other = (scenarios.build(40, random.Random(seed)) for seed in (7, 7, 8))
    assert {n: (s.steps, s.files, s.meta) for n, s in first.items()} == \
        {n: (s.steps, s.files, s.meta) for n, s in again.items()}
    assert first["agent_fresh"].meta["file"] != other["agent_fresh"].meta["file"]
    samples = {scenarios.load_sample(name)["task"] for name in ("cpA", "cpB", "cpC")}
    replies = first["agent_replies"]  # fresh runs, each with a file of its own in a nested folder
    assert all("/" in name for name in replies.meta["files"]) and len(set(replies.meta["files"])) == len(replies.steps)
    assert all(step["kwargs"]["client"] == scenarios.CLIENT and step["replies"] for step in replies.steps)
    finished = first["agent_finished"]  # the task done, the closing reply in each shape: a file for each
    assert len(set(finished.meta["files"])) == len(finished.steps) == len(ENDING_SHAPES)
    assert [cp["messages"][-1] for cp in finished.meta["checkpoints"]] == \
        [{"role": "assistant", "content": closing["content"]} for closing in finished.meta["closings"]]
    assert {"role": "assistant", "content": []} in [cp["messages"][-1] for cp in finished.meta["checkpoints"]]
    assert all(finished.meta["task"] != cp["task"] for cp in finished.meta["checkpoints"])
    for name, scenario in first.items():
        if name.startswith("agent_") and "files" not in scenario.meta:
            assert "/" in scenario.meta["file"] and scenario.watch == scenario.meta["file"] != "checkpoint.json"
            kwargs = scenario.steps[0]["kwargs"]  # one resume without a client, one with client=None
            assert ("client" not in kwargs) if name == "agent_resume" else \
                kwargs["client"] == (None if name == "agent_pending" else scenarios.CLIENT)
            assert scenario.meta["task"] not in samples
            if scenario.meta["checkpoint"]:  # resumed with the task in other words than the checkpoint's
                assert scenario.meta["task"] != scenario.meta["checkpoint"]["task"]
    tools = [cp["pendingToolUse"]["name"] for cp in first["reconcile_unheard_of"].meta["checkpoints"]]
    assert len(tools) == len(generated.UNHEARD_OF) and not set(tools) & READ_ONLY_TOOL_NAMES
    for built in (first, other):  # resumed with a tool no list names dangling, on each task, beside a send_email
        dangling = built["agent_dangling"]
        resumed = dangling.meta["checkpoints"][:-2]  # then a save over one of their paths, and a run there again
        pending = [(cp["pendingToolUse"]["name"], "邮件" in cp["task"]) for cp in resumed if cp["pendingToolUse"]]
        unheard_of = {email for name, email in pending if name not in generated.NAMED_TOOLS}
        assert unheard_of == {True, False} and ("send_email", True) in pending
        assert len(set(dangling.meta["files"])) == len(resumed) == len(dangling.steps) - 2 == 6
        # the send_email one at the default path: given none, its file the lesson's CHECKPOINT_PATH
        emailed = next(i for i, cp in enumerate(resumed) if (cp["pendingToolUse"] or {}).get("name") == "send_email")
        assert dangling.meta["files"][emailed] == "checkpoint.json" and "path" not in dangling.steps[emailed]["kwargs"]
        assert all("path" in step["kwargs"] for i, step in enumerate(dangling.steps[:-2]) if i != emailed)


def test_a_long_checkpoint_is_the_sample_with_a_long_file_read():
    """The long checkpoint test_save_load loads (a load that reads a first part only fails on it)."""
    sample = scenarios.Draw(random.Random(1)).sample("cpB", scenarios.MEETING_TASKS[0])
    long = lengthened(sample)
    assert LONG_CHECKPOINT_BYTES + 100 > len(json.dumps(long, ensure_ascii=False).encode()) >= LONG_CHECKPOINT_BYTES
    assert LONG_CHECKPOINT_BYTES > 2 * 1024 * 1024  # a load that caps what it reads at a round 1 or 2 MiB fails on it
    changed = [(old, new) for old, new in zip(sample["messages"], long["messages"]) if old != new]
    assert len(long["messages"]) == len(sample["messages"]) and len(changed) == 1
    (old,), (new,) = changed[0][0]["content"], changed[0][1]["content"]
    assert new["content"].startswith(old["content"] + "\n附录第 0 行") and {**new, "content": ""} == {**old, "content": ""}
    assert {key: value for key, value in long.items() if key != "messages"} == \
        {key: value for key, value in sample.items() if key != "messages"}
    built = scenarios.build(40, random.Random(7))["save_roundtrip"]
    assert built.meta["long"] == lengthened(built.meta["state"])
    assert json.loads(built.files[built.steps[3]["args"][0]["$path"]]) == built.meta["long"]


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
    assert all(name.endswith(read_only) and name[-len(next(t for t in read_only if name.endswith(t))) - 1] in "_-"
               for name in names["ends_with_read_only"])  # a suffix test says read-only
    assert all(name.startswith("mcp__") and name.split("__")[-1] in read_only
               for name in names["namespaced_read_only"])  # so does one that drops a namespace
    assert not [name for name in generated.UNUSUAL_VERBS  # a deny-list of the obvious verbs lets these through
                if any(word in name for word in (*OBVIOUS_VERBS, *read_only))]
    sounding = names["sounds_read_only"]  # a guess by the name ("get_..." reads) runs these again
    assert all(name.startswith(generated.READING_VERBS) for name in sounding) and len(set(sounding)) > 20
    assert any("_" in name for name in sounding) and any("_" not in name for name in sounding)
    assert all(name.startswith(("get_", "fetch_")) for name in names["get_or_fetch"])
    # READ_ONLY_TOOLS written as one string: `in` finds these inside it
    assert all(name in ", ".join(sorted(READ_ONLY_TOOL_NAMES)) for name in names["part_of_read_only"])
    assert {"email", "read", "search", "file", "list", "sent_email"} <= set(generated.PARTS_OF_READ_ONLY)
    named = READ_ONLY_TOOL_NAMES | set(load_reference(lesson("lesson04")).EFFECTS)  # both lessons' tables
    assert all(name not in named for kind in names for name in names[kind])
    assert len(set(names["made_up"])) > 20
    # get_or_fetch has few names, one of them in lesson 4's table (get_balance): drawn often, it gives all the others
    every = {f"{verb}_{noun}" for verb in generated.COMMON_READING_VERBS for noun in generated.NOUNS}
    drawn = {name for name, _ in generated.examples(generated.DANGLING["get_or_fetch"], 400, 6)}
    assert "get_balance" in every and drawn <= every - named and len(drawn) > len(every) - 4


def test_drawn_inputs_are_what_the_seed_says():
    """The same seed draws the same values; another seed other ones; the simplest value, the same for every
    seed, is never among them."""
    strategy = generated.checkpoints(generated.DANGLING["grep"])
    first, again, other = (generated.examples(strategy, 5, seed) for seed in (3, 3, 4))
    assert first == again and first != other
    simplest = [[cp["task"], len(cp["messages"])] for cp in first + other]
    assert len({json.dumps(s, ensure_ascii=False) for s in simplest}) > 5


def test_a_seed_draws_the_same_whatever_local_modules_are_loaded(tmp_path, monkeypatch):
    """A judge that has loaded more of the project (a pool's worker, the hidden tests after its first
    submission) draws what a fresh judge draws from the same seed: no constant of a local module is used."""
    strategy = generated.DANGLING["made_up"]
    before = generated.examples(strategy, 100, 11)
    words = sorted({f"{a}{b}" for a in ("user", "version", "data", "sent", "tool") for b in ("", "_id", "_x", "s")})
    (tmp_path / "i19g_local_constants.py").write_text(f"WORDS = {words!r}\nNUMBERS = {list(range(3, 900, 7))!r}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("i19g_local_constants")
    assert generated.examples(strategy, 100, 11) == before


@pytest.mark.parametrize("kind", generated.BROKEN_KINDS)
def test_every_kind_of_broken_file_is_refused_by_the_reference(kind, tmp_path):
    reference = load_reference()
    refused = {"folder": IsADirectoryError, "unreadable": PermissionError}.get(kind, ValueError)
    for _, content in generated.examples(generated.broken_files(kind), 10, 9):
        path = tmp_path / "checkpoint.json"
        if content == generated.FOLDER:
            path.mkdir()
        else:
            path.write_bytes(content)
            path.chmod(getattr(content, "mode", 0o644))
        with pytest.raises(refused):
            unprivileged(reference.load_checkpoint, path)  # as a step runs it: mode bits bind even root
        path.rmdir() if path.is_dir() else path.unlink()


def test_an_unreadable_file_is_written_with_its_mode_and_read_back_by_the_grader(tmp_path):
    """A FileData keeps its mode through the drawing (a deep copy) and the grader's atomic write; the grader
    still reads it afterwards (an ordinary user's grader gives itself read permission for that, and takes it back)."""
    _, content = copy.deepcopy(generated.examples(generated.broken_files("unreadable"), 1, 2)[0])
    folder = Folder(tmp_path / "work", "/work/x")
    folder.write_atomically("runs/checkpoint.json", content)
    written = tmp_path / "work" / "runs" / "checkpoint.json"
    assert stat.S_IMODE(written.stat().st_mode) == content.mode == 0
    assert folder.read_bytes("runs/checkpoint.json") == bytes(content)
    assert stat.S_IMODE(written.stat().st_mode) == 0
    with pytest.raises(PermissionError):
        unprivileged(written.read_bytes)
    folder.remove()


def test_a_folder_the_step_shut_is_removed_by_a_grader_that_is_no_root(tmp_path):
    """A step that leaves a folder of mode 000 full of data (red team: tamper_locked_leftovers) must not keep that
    space from the next notebooks graded in the same session."""
    folder = Folder(tmp_path / "work", "/work/x")
    shut = tmp_path / "work" / ".ipynb_checkpoints" / ".locked"
    (shut / "deeper").mkdir(parents=True)
    (shut / "deeper" / "filler").write_bytes(b"x" * 4096)
    (shut / "deeper").chmod(0)
    shut.chmod(0)
    unprivileged(folder.remove)
    assert not (tmp_path / "work").exists()


def test_a_failing_rerun_fails_with_the_course_tools_and_the_reference_flags_it():
    reference = load_reference()
    for name, tool_input in generated.examples(generated.DANGLING["failing_rerun"], 20, 4):
        assert name in READ_ONLY_TOOL_NAMES and execute_tool(name, tool_input).startswith("错误"), (name, tool_input)
        cp = scenarios.Draw(random.Random(1)).with_pending(scenarios.load_sample("cpB"), name, tool_input)
        assert reference.reconcile(cp)["messages"][-1]["content"][0]["is_error"] is True


@pytest.mark.parametrize("kind", generated.UNJSONABLE_KINDS)
def test_a_state_json_cannot_hold_makes_the_reference_raise_and_keep_the_checkpoint(kind, tmp_path):
    reference = load_reference()
    previous = json.dumps(scenarios.load_sample("cpA"), ensure_ascii=False)
    for marked in generated.examples(generated.unjsonable_states(kind), 5, 6):
        state = python_value(marked["$python"])
        with pytest.raises(NotPlain):
            plain(state)
        path = tmp_path / "checkpoint.json"
        path.write_text(previous, encoding="utf-8")
        with pytest.raises((TypeError, ValueError)):
            reference.save_checkpoint(state, path)
        assert path.read_text(encoding="utf-8") == previous and list(tmp_path.iterdir()) == [path]


def test_reply_plans_hold_every_shape_and_a_tool_call_in_every_run():
    for plan in generated.examples(generated.reply_plans(), 20, 3):
        assert sorted(map(str, (shape for run in plan for shape in run))) == \
            sorted(map(str, (*TOOL_CALL_SHAPES, None, None, *ENDING_SHAPES)))
        assert all(len(run) >= 2 and run[-1] in ENDING_SHAPES and set(run[:-1]) <= {*TOOL_CALL_SHAPES, None}
                   for run in plan)


def test_every_planned_shape_is_reached_in_agent_replies():
    """The scripted model, given the scenario's tool outputs (in their planned shapes), asks for a tool in every
    reply its run's plan gives a tool call's shape, and gives the ending shape last: no run ends before its plan,
    and every run reaches the read-only output planned in a shape, each shape in one run."""
    for seed in range(40):
        replies = scenarios.build(40, random.Random(seed))["agent_replies"]
        assert sorted(shape for step in replies.steps for shape in step.get("outputs") or ()) == sorted(TOOL_OUTPUT_SHAPES)
        for step in replies.steps:
            plan, shapes = step["replies"], step.get("outputs") or ()
            messages, read_only, got = [{"role": "user", "content": step["args"][0]}], 0, []
            while len(got) <= len(plan):
                body = {**request_params(), "messages": messages}
                reply = answer(body, plan[len(got)] if len(got) < len(plan) else None)[1]
                got.append(reply)
                messages.append({"role": "assistant", "content": reply["content"]})
                uses = [b for b in reply["content"] if b["type"] == "tool_use"]
                if not uses:
                    break
                output = execute_tool(uses[0]["name"], uses[0]["input"]) if uses[0]["name"] != "send_email" else "已发送"
                if uses[0]["name"] in READ_ONLY_TOOL_NAMES:
                    shape = shapes[read_only] if read_only < len(shapes) else None
                    output, read_only = TOOL_OUTPUT_SHAPES[shape](output) if shape else output, read_only + 1
                messages.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": uses[0]["id"], "content": output}]})
            assert len(got) == len(plan) and got[-1]["stop_reason"] == shaped(got[-1], plan[-1])["stop_reason"] \
                and read_only >= len(shapes), (seed, step["args"][0], plan, shapes, [r["stop_reason"] for r in got])


@pytest.mark.parametrize("shape", (*TOOL_CALL_SHAPES, *ENDING_SHAPES))
def test_each_reply_shape_carries_the_same_step_as_the_api_may(shape):
    """The SDK reads every shape; a tool call's shape keeps the one tool call (answered, the conversation goes
    on), an ending shape has none; a stop sequence is named only when one stopped the reply."""
    messages = [{"role": "user", "content": "帮我整理这周的会议纪要"}]
    planned = next(b for b in scripted_reply({"messages": messages})["content"] if b["type"] == "tool_use")
    reply = scripted_client([shape]).messages.create(messages=messages, **request_params())
    uses = [block.model_dump(exclude_none=True) for block in reply.content if block.type == "tool_use"]
    ids = {block.pop("id") for block in (planned, *uses)}  # new on every reply, as the API's
    assert uses == ([planned] if shape in TOOL_CALL_SHAPES else [])
    assert (reply.stop_sequence is not None) == (reply.stop_reason == "stop_sequence")
    if uses:
        assert len(ids) == 2
        check_tool_pairing(messages + [assistant_message(reply), {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": next(b.id for b in reply.content if b.type == "tool_use"),
             "content": "结果"}]}])


def test_every_reconcile_with_a_history_has_the_same_call_answered_before():
    """Whatever the seed: a reconcile that trusts an earlier answer of the very same call (its result copied, or
    "done before" for a call it may not run again) meets one in every case with a history."""
    for seed in range(6):
        built = scenarios.build(40, random.Random(seed))
        cases = [cp for name in ("reconcile_read_only", "reconcile_send_email", "reconcile_unheard_of")
                 for cp in built[name].meta["checkpoints"]] + built["recovery_action"].meta["cases"]
        for cp in cases:
            pending = cp["pendingToolUse"]
            if pending is None or len(cp["messages"]) <= 2:
                continue
            answered = {block["tool_use_id"]: block for message in cp["messages"][1:-1]
                        if isinstance(message["content"], list) for block in message["content"]
                        if block["type"] == "tool_result"}
            same = [answered.get(block["id"]) for message in cp["messages"][1:-1]
                    if isinstance(message["content"], list) for block in message["content"]
                    if block["type"] == "tool_use" and block["name"] == pending["name"]
                    and block["input"] == pending["input"]]
            assert any(result is not None and not result.get("is_error") for result in same), cp


def test_a_dangling_send_is_always_one_the_sent_list_shows_as_written():
    """Whatever the seed: a reconcile that looks the dangling email up in the sent list (and calls it sent when
    found) meets one whose subject the mail's header keeps as written, so it never passes by the draw's luck."""
    for seed in range(20):
        sends = scenarios.build(40, random.Random(seed))["reconcile_send_email"].meta["checkpoints"]
        subjects = [cp["pendingToolUse"]["input"]["subject"] for cp in sends]
        assert any(subject == subject.strip() for subject in subjects), subjects


def test_a_dangling_send_is_also_one_the_model_asked_for_again():
    """Whatever the seed: among the dangling sends is one with another's name and input under a new id, after that
    one was answered is_error (the model asked to send it again), so a reconcile that answers a name and input once
    per process leaves one of the two without a tool_result."""
    for seed in range(20):
        sends = scenarios.build(40, random.Random(seed))["reconcile_send_email"].meta["checkpoints"]
        answered = {block["tool_use_id"]: (cp["pendingToolUse"], block) for cp in sends for message in cp["messages"]
                    if isinstance(message["content"], list) for block in message["content"]
                    if block["type"] == "tool_result"}
        dangling = {cp["pendingToolUse"]["id"]: cp["pendingToolUse"] for cp in sends}.values()  # one reconciled twice
        again = [(first, answered[first["id"]]) for first in dangling if first["id"] in answered]
        assert len(again) == 1, sends
        first, (pending, block) = again[0]
        assert (pending["name"], pending["input"]) == (first["name"], first["input"]) and block["is_error"] is True


def test_a_dangling_send_is_reconciled_again_later_in_the_process():
    """Whatever the seed: one of the dangling sends comes back later in the same process, the same checkpoint (a
    crash before the save after reconciling leaves save point A on disk), so a reconcile that answers an id once
    leaves it without a tool_result."""
    for seed in range(20):
        sends = scenarios.build(40, random.Random(seed))["reconcile_send_email"].meta["checkpoints"]
        ids = [cp["pendingToolUse"]["id"] for cp in sends]
        twice = [number for number, tool_id in enumerate(ids) if tool_id in ids[:number]]
        assert len(twice) == 1 and sends[twice[0]] == sends[ids.index(ids[twice[0]])], ids


def test_every_tool_output_shape_is_judged_in_run_agent_and_reconcile():
    """Whatever the seed: each shape of TOOL_OUTPUT_SHAPES (an output beginning with an English ERROR too) is the
    output of a read-only call in the fresh runs, and the English one and the others whose is_error is judged are
    outputs of reconcile's reruns."""
    for seed in range(20):
        built = scenarios.build(40, random.Random(seed))
        replies = [shape for step in built["agent_replies"].steps for shape in step["outputs"]]
        assert sorted(replies) == sorted(TOOL_OUTPUT_SHAPES)
        reruns = [shape for step in built["reconcile_read_only"].steps for shape in step["outputs"]]
        assert {"empty", "mentions_error", "english_error"} <= set(reruns)


def test_resumes_in_one_process_take_each_client_and_follow_the_disk():
    """Whatever the seed, agent_dangling's process has: runs given a client and one given client=None (a client kept
    from an earlier run is the wrong one somewhere); a checkpoint ending in the user's words after the tool results
    and one with the bare task, one whose last tool result failed; and, after the runs, a checkpoint saved over an
    earlier run's path and a run there (given the path as the earlier run was, or none)."""
    for seed in range(20):
        dangling = scenarios.build(40, random.Random(seed))["agent_dangling"]
        steps, meta = dangling.steps, dangling.meta
        runs = [step for step in steps if step["name"] == "run_agent"]
        assert {step["kwargs"]["client"] is None for step in runs} == {True, False}
        ends = [cp["messages"][-1] for cp in meta["checkpoints"] if cp and cp["pendingToolUse"] is None]
        assert sorted(end["content"][-1]["type"] if isinstance(end["content"], list) else "task" for end in ends) == \
            ["task", "text", "tool_result"]
        assert [end["content"][-1].get("is_error") for end in ends if isinstance(end["content"], list)
                and end["content"][-1]["type"] == "tool_result"] == [True]
        assert [step["name"] for step in steps[-2:]] == ["save_checkpoint", "run_agent"]
        assert steps[-2]["args"][1:] == [steps[-1]["kwargs"]["path"]] if "path" in steps[-1]["kwargs"] else \
            steps[-2]["args"][1:] == []
        assert steps[-1]["kwargs"].get("path") in [step["kwargs"].get("path") for step in steps[:-2]]
        assert steps[-2]["args"][0] == meta["checkpoints"][-1] != meta["checkpoints"][meta["files"].index(
            meta["files"][-1])]


def test_a_tool_result_sent_for_a_call_never_run_is_found():
    """The feedback says a run answered the model's tool call without execute_tool only where its next model call
    carries a tool_result for that very call (what the reference ran there)."""
    from autograder.hidden_tests.replies import _served_without_running
    asked = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01X", "name": "list_dir",
                                               "input": {"path": "."}}]}
    answered = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01X", "content": "a.md"}]}
    call = {"messages": [{"role": "user", "content": "任务"}, asked, answered], "status": 200}
    assert _served_without_running(call, ("tool", "list_dir", {"path": "."})) == "a.md"
    assert _served_without_running(call, ("tool", "list_dir", {"path": "notes"})) is None
    assert _served_without_running(call, ("model", 200)) is None
    unanswered = {**call, "messages": call["messages"][:2]}
    assert _served_without_running(unanswered, ("tool", "list_dir", {"path": "."})) is None


def save_process(events: list, started_at: list, steps: list, returned_at: list | None = None):
    """The outcome of a process of saves and loads (save_reload's batch), as check_no_leaks reads it."""
    scenario = SimpleNamespace(steps=[{**step, "batch": "saves"} for step in steps])
    return SimpleNamespace(fs_events=events, started_at=started_at, returned_at=returned_at or [None] * len(steps),
                           scenario=scenario, workdir="/w")


def descriptor_event(at, op, fd, flags=None, path="/w/runs/a.json.tmp"):
    return {"step": 0, "op": op, "fd": fd, "flags": flags, "path": path, "at": at}


def test_descriptors_left_open_are_every_kind_with_the_step_that_opened_them():
    """Opened after the step began and never closed, to write, to read or to fsync a folder, each with the step of
    the batch it was opened in: a log the cell opened before the step, and a descriptor closed (its number then taken
    again), are not among them. One closed only after the batch's steps returned (logging.shutdown closing a
    handler's file as the kernel ends) stayed open while the kernel ran: it is among them."""
    event = descriptor_event
    events = [event(1, "open", 3, "O_WRONLY|O_CREAT|O_APPEND", "/w/agent.log"),  # the cell's log, before the step
              event(5, "open", 4, "O_RDWR|O_CREAT|O_EXCL"), event(6, "close", 4),
              event(7, "open", 4, "O_RDWR|O_CREAT|O_EXCL"), event(8, "open", 5, "O_RDONLY|O_DIRECTORY", "/w/runs"),
              event(9, "close", 5), event(12, "open", 5, "O_RDONLY", "/w/runs/a.json"),
              event(13, "open", 6, "O_RDONLY|O_CLOEXEC", "/w/runs"), event(15, "close", 4)]
    outcome = save_process(events, [2, 10], [{"name": "save_checkpoint"}, {"name": "load_checkpoint"}], [9, 14])
    assert [(step, e["at"]) for step, e in descriptors_left_open(outcome, 0)] == [(0, 7), (1, 12), (1, 13)]


def test_the_mkstemp_advice_is_for_a_leaked_temporary_file_only():
    """A descriptor left open on the file that became the checkpoint gets the mkstemp advice; one on a lock file
    the save removed (never written) or a log gets the plain advice to close what it opens."""
    event = descriptor_event
    temporary = [event(1, "open", 4, "O_RDWR|O_CREAT|O_EXCL"), event(2, "write", 5),
                 {**event(3, "rename", None), "dst": "/w/runs/a.json"}]
    lock = [event(1, "open", 4, "O_WRONLY|O_CREAT", "/w/runs/a.json.lock"),
            event(2, "unlink", None, path="/w/runs/a.json.lock")]
    for events, mkstemp in ((temporary, True), (lock, False)):
        advice = leak_advice(SimpleNamespace(fs_events=events), events[0])
        assert ("mkstemp" in advice) is mkstemp, advice


def test_a_save_leftover_is_a_file_beside_the_path_or_a_checkpoint_copy_anywhere():
    """A log in another folder than the checkpoint's is not the save's leftover; a file beside the checkpoint is,
    and so is a checkpoint's JSON cut short anywhere."""
    files = {"saves.log": "saved var/a.json\n", "var/a.json.lock": "", "a.json.x.tmp": '{\n  "version": 1,\n  "mes',
             "var/a.json": "{}"}
    outcome = SimpleNamespace(scenario=SimpleNamespace(files={}), files_by_step=[sorted(files)], defined_files=[[]],
                              files_after=files)
    assert save_leftovers(outcome, 0, "var/a.json") == ["a.json.x.tmp", "var/a.json.lock"]


def test_a_file_sized_by_ftruncate_and_never_written_is_said_to_be_unseen():
    """A temporary file whose length ftruncate set and no recorded write reached (written through mmap) is named,
    so the feedback does not claim the grader saw its bytes; one written as usual is not."""
    sized = [{"op": "truncate", "path": "/w/a.tmp"}, {"op": "fsync", "path": "/w/a.tmp"},
             {"op": "rename", "path": "/w/a.tmp", "dst": "/w/a.json"}]
    assert sized_without_writes(sized) == ["/w/a.tmp"]
    assert sized_without_writes([{"op": "write", "path": "/w/a.tmp"}, *sized]) == []


def test_a_leak_is_a_descriptor_a_save_to_a_path_saved_to_before_leaves_open():
    """os.fsync(os.open(folder, O_RDONLY)) on every save leaks; one folder descriptor kept per folder (opened by
    the first save there) does not, however many folders."""
    event, folder = descriptor_event, "/w/runs"
    saves = [{"name": "save_checkpoint", "args": [{}, {"$path": name}]} for name in ("runs/a.json", "runs/a.json",
                                                                                     "b/c.json", "b/c.json")]
    per_save = [event(10 * number + 1, "open", 4 + number, "O_RDONLY|O_CLOEXEC", folder) for number in range(4)]
    kept = [event(1, "open", 4, "O_RDONLY|O_CLOEXEC", folder), event(21, "open", 5, "O_RDONLY|O_CLOEXEC", "/w/b")]
    writes = [event(2, "open", 9, "O_WRONLY", folder + "/a.json.tmp")]
    check_no_leaks(SimpleNamespace(outcome=lambda name: save_process(kept + writes, [0, 10, 20, 30], saves)))
    with pytest.raises(pytest.fail.Exception, match="漏掉的是 path 所在的文件夹的描述符"):
        check_no_leaks(SimpleNamespace(outcome=lambda name: save_process(per_save + writes, [0, 10, 20, 30], saves)))


def test_a_temporary_file_in_a_subfolder_the_save_made_is_not_said_to_be_on_another_disk():
    """A subfolder of the checkpoint's folder that the save made is on its disk: the feedback says it is left beside
    the checkpoint; a folder elsewhere (/tmp) may be another disk."""
    made = SimpleNamespace(fs_events=[{"step": 0, "op": "mkdir", "path": "/w/runs/.tmp", "at": 1}])
    said = temporary_elsewhere(made, "/w/runs/.tmp", "/w/runs/a.json")
    assert "另一块磁盘" not in said and "子文件夹 .tmp" in said and "一直留在 path 旁边" in said
    assert "另一块磁盘" in temporary_elsewhere(made, "/tmp", "/w/runs/a.json")


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
            if cp["pendingToolUse"]:  # the dangling call is the last message's one tool_use (text may follow it)
                calls = [block for block in cp["messages"][-1]["content"] if block["type"] == "tool_use"]
                assert [call["id"] for call in calls] == [cp["pendingToolUse"]["id"]]
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


def test_lesson4_draws_the_same_call_again_in_one_process():
    """Whatever the seed: one call comes back to recovery_action five times in its batch, its ledger grown each time
    (the reference answers execute, is_error, execute, record, reuse, in that order: the server says it has not got
    the email before it has it), one ledger: each time's records begin with the time before's, and the three times
    with only its intent pass the same records, the server's answer changed (what a decision remembered by its input,
    or a "not received" remembered, answers wrongly); reconcile_up
    reconciles one call it records or executes twice on the same ledger, the second time read as it begins; and one
    email the server has answers "" when asked by key."""
    from autograder.hidden_tests_lesson04 import scenarios as lesson4
    from autograder.scenario_run import answering_lookup

    reference = load_reference(lesson("lesson04"))
    for seed in range(4):
        built = lesson4.build(40, random.Random(seed))
        cases = built["recovery_action"].meta["cases"]
        ids = [c["checkpoint"]["pendingToolUse"]["id"] for c in cases if c["checkpoint"]["pendingToolUse"]]
        again = [n for n, c in enumerate(cases) if c["checkpoint"]["pendingToolUse"]
                 and ids.count(c["checkpoint"]["pendingToolUse"]["id"]) > 1]
        answers = [reference.recovery_action(copy.deepcopy(cases[n]["checkpoint"]), copy.deepcopy(cases[n]["records"]),
                                             answering_lookup(cases[n]["service"])) for n in again]
        assert answers == ["execute", "is_error", "execute", "record", "reuse"]
        grown = [cases[n]["records"] for n in again]
        assert all(later[:len(earlier)] == earlier for earlier, later in zip(grown, grown[1:]))
        assert grown[1] == grown[2] == grown[3]
        assert len({json.dumps(cases[n]["service"], sort_keys=True) for n in again[1:4]}) == 3
        up = built["reconcile_up"]
        twice = [n for n, c in enumerate(up.meta["cases"]) if c.get("again")]
        assert len(twice) == 1 and up.steps[twice[0]]["read_before"] == [up.meta["cases"][twice[0]]["ledger"]]
        first = next(c for c in up.meta["cases"] if c["ledger"] == up.meta["cases"][twice[0]]["ledger"])
        assert up.meta["cases"].index(first) < twice[0]
        assert first["checkpoint"] == up.meta["cases"][twice[0]]["checkpoint"]
        assert reference.recovery_action(copy.deepcopy(first["checkpoint"]), copy.deepcopy(first["records"]),
                                         answering_lookup(first["service"])) in ("record", "execute")
        empty = [(c, step) for c, step in zip(up.meta["cases"], up.steps)
                 if "lookup_answers" in step and not c.get("again")]
        assert len(empty) == 1 and empty[0][0]["sent"] and list(empty[0][1]["lookup_answers"].values()) == [""]


def test_lesson4_a_send_that_never_arrived_has_a_look_alike_in_the_sent_list():
    """Whatever the seed: each dangling send_email the server never got has, among the emails delivered before the
    steps, an earlier one without its key to the same recipient with the same subject, so a reconcile that guesses
    from the sent list skips it every run rather than when the draw happens to repeat a subject."""
    from autograder.hidden_tests_lesson04 import scenarios as lesson4

    for seed in range(6):
        for name in ("reconcile_up", "reconcile_down"):
            scenario = lesson4.build(40, random.Random(seed))[name]
            unkeyed = [(e["to"], e["subject"]) for e in scenario.emails_before if isinstance(e, dict)]
            never = [c["checkpoint"]["pendingToolUse"]["input"] for c in scenario.meta["cases"]
                     if not c.get("again") and not c["sent"] and c["checkpoint"]["pendingToolUse"]["name"] == "send_email"]
            assert never and all((i["to"], i["subject"]) in unkeyed for i in never), (unkeyed, never)


def test_lesson4_every_reconcile_scenario_has_an_outcome_apart_from_its_intent():
    """Whatever the seed: in reconcile_up and in reconcile_down, at least one dangling call with an outcome in its
    ledger has another call's record between its intent and that outcome, so a reader that looks only at the record
    right after the intent misses it every run, not when the draw happens to part them."""
    from autograder.hidden_tests_lesson04 import scenarios as lesson4

    for seed in range(6):
        built = lesson4.build(40, random.Random(seed))
        for name in ("reconcile_up", "reconcile_down"):
            parted = []
            for case in built[name].meta["cases"]:
                if case.get("again"):
                    continue
                ids = [r["toolUseId"] for r in case["records"]]
                ours = [n for n, r in enumerate(case["records"])
                        if r["toolUseId"] == case["checkpoint"]["pendingToolUse"]["id"]]
                if len(ours) == 2 and case["records"][ours[1]]["type"] == "outcome":
                    parted.append(ours[1] - ours[0] > 1 and len(set(ids[ours[0]:ours[1] + 1])) > 1)
            assert any(parted) and len(parted) >= 2, (seed, name, parted)


@pytest.mark.parametrize("mine, told", [
    ([("charge_card", {"amount": 5}, "toolu_a")] * 3, "用同一个幂等键 toolu_a 执行了 3 次，参考答案是 1 次"),  # retried
    ([("charge_card", {"amount": 5}, "toolu_b")], "执行工具要走 execute_with_ledger"),  # another key, run once
])
def test_a_call_run_again_under_its_own_key_is_told_not_to_retry(mine, told):
    """Calls with effects that differ from the reference's: one key run more often than the reference runs it is
    called a retry; a key the reference never ran (the conversations parted) is not."""
    from autograder.hidden_tests_lesson04.effects_runs import _effects_problem

    wanted = [("charge_card", {"amount": 5}, "toolu_a")]
    assert told in _effects_problem({"what": "fresh", "calls": [], "records": []}, mine, wanted, None)


@pytest.mark.parametrize("opened, at, told", [
    ("O_RDONLY|O_CLOEXEC", 20, "execute_with_ledger(call, ledger)"),  # read (reconcile did) before the call ran
    ("O_RDONLY|O_CLOEXEC", 40, "续跑时要 reconcile"),  # read only after it ran
    ("O_RDONLY|O_CLOEXEC", 5, "续跑时要 reconcile"),  # read by the run before this one
    ("O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC", 20, "续跑时要 reconcile"),  # appended to, never read
])
def test_a_resumed_run_that_read_its_ledger_is_told_to_execute_through_it(opened, at, told):
    """A resumed run whose dangling call's records are missing: if it read its ledger before it ran the call (it
    reconciled), its reconcile's execute path skipped the ledger; else it did not reconcile at all."""
    from autograder.hidden_tests_lesson04.effects_runs import _ledger_problem

    pending = {"id": "toolu_x", "name": "add_label", "input": {"ticket": "T-1", "label": "urgent"}}
    run = {"what": "idempotent", "checkpoint": {"pendingToolUse": pending}, "ledger": "a/ledger.jsonl", "records": []}
    outcome = SimpleNamespace(workdir="/w", started_at=[10],
                              fs_events=[{"op": "open", "path": "/w/a/ledger.jsonl", "flags": opened, "at": at}],
                              student_tool_calls=lambda step: [{**pending, "key": "toolu_x", "at": 30}])
    said = _ledger_problem(outcome, 0, run, {"toolu_x": "add_label"}, {}, {"toolu_x": [("intent",), ("outcome", "")]})
    assert told in said and said.count("execute_with_ledger") == (told != "续跑时要 reconcile")


def test_a_kept_answer_is_told_what_changed_since_the_time_before():
    from autograder.hidden_tests_lesson04.test_recovery_action import what_changed

    intent, down, up = [{"type": "intent", "toolUseId": "toolu_x"}], {"down": True}, {"down": False}
    assert what_changed({"records": intent, "service": down}, {"records": intent, "service": up}) == "服务端的回答"
    assert what_changed({"records": [], "service": down}, {"records": intent, "service": down}) == "台账记录"
    assert what_changed({"records": [], "service": down}, {"records": intent, "service": up}) == "台账记录和服务端的回答都"


def test_lesson4_draws_every_output_reused_and_an_effect_asked_for_twice():
    """Whatever the seed: reconcile reuses a recorded outcome of each shape a tool's output may take (a long one makes
    a line longer than a reader of the last few KB sees); the planned model asks for the same call not idempotent twice
    (the same name and input, later, by a new id), from scratch beside a ledger holding another task's records."""
    from autograder.hidden_tests_lesson04 import scenarios as lesson4
    from course.checks import TOOL_OUTPUT_SHAPES

    for seed in range(6):
        built = lesson4.build(40, random.Random(seed))
        outputs = [r["output"] for name in ("reconcile_up", "reconcile_down") for c in built[name].meta["cases"]
                   if "records" in c for r in c["records"]
                   if r["type"] == "outcome" and r["toolUseId"] == c["checkpoint"]["pendingToolUse"]["id"]]
        assert "" in outputs and "（没有匹配的行）" in outputs and max(map(len, outputs)) > 10000
        assert any("磁盘空间不足（已处理" in output for output in outputs)
        assert any(output.startswith("ERROR") for output in outputs) and len(TOOL_OUTPUT_SHAPES) == 5
        fresh = built["agent_effects"].meta["runs"][0]
        plan = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in fresh["calls"]]
        twice = [c for c in fresh["calls"] if plan.count(json.dumps(c, sort_keys=True, ensure_ascii=False)) == 2]
        assert len(plan) == 5 and len(twice) == 2 and twice[0]["name"] in lesson4.EFFECT_KINDS["non_idempotent"]
        assert fresh["checkpoint"] is None and fresh["records"]


def test_a_torn_line_cut_one_byte_short_is_told_it_took_the_line_break():
    """A reader that truncates the ledger to its last line break rather than just after it leaves the last whole
    record without its "\\n": the feedback says so, not the advice to cut at the last line break it followed."""
    from autograder.hidden_tests_lesson04.ledger_crashes import LINE_BREAK_ADVICE, LOSS_ADVICE, first_loss

    whole = b"".join(json.dumps({"type": "intent", "toolUseId": f"toolu_{n}", "name": "send_email", "input": {}},
                                ensure_ascii=False).encode() + b"\n" for n in range(2))
    torn = whole + b'{"type": "intent", "toolUse'
    before = ("start", "在这一步开始之前", {torn})
    short_by_one = first_loss([before, ("call", "在「截断」之后", {torn, whole[:-1]})])
    assert LINE_BREAK_ADVICE in short_by_one and "只剩 1 条" in short_by_one
    emptied = first_loss([before, ("call", "在「清空」之后", {torn, b""})])
    assert LOSS_ADVICE in emptied and LINE_BREAK_ADVICE not in emptied
    assert first_loss([before, ("call", "在「截断」之后", {torn, whole})]) is None


def test_lesson3_every_run_reconciles_an_email_to_the_team_and_one_to_a_person():
    """Whatever the seed, reconcile_send_email has a dangling send_email to the team's list and one to one person:
    a reconcile that sends a person's email again ("a duplicate to one person does no harm") loses every run."""
    for seed in range(6):
        built = scenarios.build(40, random.Random(seed))
        recipients = {cp["pendingToolUse"]["input"]["to"] for cp in built["reconcile_send_email"].meta["checkpoints"]}
        team = {to for to in recipients if to.startswith("team@")}
        assert team and recipients - team, (seed, recipients)
        assert any(not to.endswith("@example.com") for to in team), (seed, recipients)  # not only the samples' domain


def test_trailing_data_is_a_whole_checkpoint_and_more():
    """A broken file of kind trailing_data starts with a whole JSON object (a reader that stops there loads it) and
    has more after it, so json.loads, and the reference's load_checkpoint, call it broken."""
    for kind, data in generated.examples(generated.broken_files("trailing_data"), 20, 3):
        assert kind == "trailing_data"
        text = data.decode("utf-8")
        value, end = json.JSONDecoder().raw_decode(text)
        assert isinstance(value, dict) and value["version"] == 1 and text[end:].strip()
        with pytest.raises(ValueError):
            json.loads(text)


def test_lesson4_reconcile_meets_calls_no_ledger_has_recorded():
    """Whatever the seed: reconcile_up and reconcile_down each end with a call whose ledger does not exist yet (last
    in its process: its append makes the ledger), reconcile_up also has one whose ledger is an empty file, and the
    reference runs each of them once (execute), the server down or not."""
    from autograder.hidden_tests_lesson04 import scenarios as lesson4
    from autograder.scenario_run import answering_lookup

    reference = load_reference(lesson("lesson04"))
    for seed in range(4):
        built = lesson4.build(40, random.Random(seed))
        for name in ("reconcile_up", "reconcile_down"):
            scenario = built[name]
            cases = scenario.meta["cases"]
            assert cases[-1].get("missing") and cases[-1]["ledger"] not in scenario.files
            blank = [c for c in cases if scenario.files.get(c["ledger"]) == "" and reference.recovery_action(
                copy.deepcopy(c["checkpoint"]), [], answering_lookup(c["service"])) == "execute"]
            assert len(blank) == (name == "reconcile_up")
            assert cases[-1]["records"] == [] and reference.recovery_action(
                copy.deepcopy(cases[-1]["checkpoint"]), [], answering_lookup(cases[-1]["service"])) == "execute"
