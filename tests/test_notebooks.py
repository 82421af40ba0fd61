"""The lesson notebooks: the source runs offline, release/ is what nbgrader makes of it and gives nothing away.

Every lesson (LESSONS: lesson 3 and lesson 4) is checked the same way. The source
notebook (with solutions) is executed top to bottom in a temporary copy of its
folder, with no API key. release/ is regenerated with nbgrader into
a temporary course folder and compared with the committed copy. The release
notebook must hold no solution and no hidden test, and must run up to the first
cell a student has to write.
"""
import ast
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from autograder.grading_guide import OBJECTIVES
from autograder.notebook_code import definition_cells

ROOT = Path(__file__).resolve().parent.parent
CELL_TIMEOUT = 60  # seconds, the same limit nbgrader_config.py gives a cell when grading
STUB = "# YOUR CODE HERE"


@dataclass(frozen=True)
class Lesson:
    name: str        # the nbgrader assignment: source/<name>/ and release/<name>/
    notebook: str
    graded_cells: dict  # grade_id -> (cell type, kind, points): what the grader and the harness rely on
    total_points: int
    questions: dict  # multiple choice: the answer cell's grade_id -> its variable
    orders: tuple    # chains of grade_ids, each of which must come in this order
    first_failure: str  # what the release says at the first check after the first stub

    @property
    def source_dir(self) -> Path:
        return ROOT / "source" / self.name

    @property
    def release_dir(self) -> Path:
        return ROOT / "release" / self.name


LESSON03 = Lesson(
    name="lesson03",
    notebook="resume-from-checkpoint.ipynb",
    graded_cells={
        "imports": ("code", "locked", None),
        "save_load": ("code", "solution", None),
        "test_save_load": ("code", "autograded", 4),
        "run_agent": ("code", "solution", None),
        "test_run_agent": ("code", "autograded", 5),
        "quiz_failure": ("code", "solution", None),
        "test_quiz_failure": ("code", "autograded", 1),
        "quiz_delete": ("code", "solution", None),
        "test_quiz_delete": ("code", "autograded", 1),
        "read_only_tools": ("code", "solution", None),
        "recovery_action": ("code", "solution", None),
        "test_recovery_action": ("code", "autograded", 3),
        "why_cpA": ("markdown", "manual", 1),
        "why_cpB": ("markdown", "manual", 1),
        "why_cpC": ("markdown", "manual", 1),
        "incident_code": ("code", "locked", None),
        "root_cause": ("code", "solution", None),
        "test_root_cause": ("code", "autograded", 1),
        "root_cause_why": ("markdown", "manual", 2),
        "reconcile": ("code", "solution", None),
        "test_reconcile": ("code", "autograded", 5),
        "test_incident_fix": ("code", "autograded", 3),
    },
    total_points=28,
    questions={"quiz_failure": "QUIZ_FAILURE_ANSWER", "quiz_delete": "QUIZ_DELETE_ANSWER",
               "root_cause": "ROOT_CAUSE_ANSWER"},
    # section 3's demos must not need reconcile
    orders=(("read_only_tools", "recovery_action", "reconcile"), ("run_agent", "reconcile")),
    first_failure="save_checkpoint 还没有写完",
)
LESSON04 = Lesson(
    name="lesson04",
    notebook="effects-and-idempotency.ipynb",
    graded_cells={
        "imports": ("code", "locked", None),
        "lesson3_code": ("code", "solution", None),
        "effects": ("code", "solution", None),
        "test_effects": ("code", "autograded", 2),
        "quiz_exactly_once": ("code", "solution", None),
        "test_quiz_exactly_once": ("code", "autograded", 1),
        "quiz_key": ("code", "solution", None),
        "test_quiz_key": ("code", "autograded", 1),
        "append_ledger": ("code", "solution", None),
        "test_append_ledger": ("code", "autograded", 3),
        "execute_with_ledger": ("code", "solution", None),
        "test_execute_with_ledger": ("code", "autograded", 3),
        "run_agent": ("code", "solution", None),
        "test_run_agent": ("code", "autograded", 2),
        "recovery_action": ("code", "solution", None),
        "test_recovery_action": ("code", "autograded", 4),
        "why_S2": ("markdown", "manual", 1),
        "why_S4": ("markdown", "manual", 1),
        "why_S5": ("markdown", "manual", 1),
        "reconcile": ("code", "solution", None),
        "test_reconcile": ("code", "autograded", 5),
        "incident_code": ("code", "locked", None),
        "root_cause": ("code", "solution", None),
        "test_root_cause": ("code", "autograded", 1),
        "root_cause_why": ("markdown", "manual", 2),
        "test_incident_fix": ("code", "autograded", 3),
    },
    total_points=30,
    questions={"quiz_exactly_once": "QUIZ_EXACTLY_ONCE_ANSWER", "quiz_key": "QUIZ_KEY_ANSWER",
               "root_cause": "ROOT_CAUSE_ANSWER"},
    # each function is written before the first one that calls it; run_agent's check stands in for reconcile
    orders=(("lesson3_code", "append_ledger", "execute_with_ledger", "run_agent", "recovery_action", "reconcile",
             "incident_code"),),
    first_failure="save_checkpoint 还没有写完",  # lesson 3's check on the pasted functions
)
LESSONS = [LESSON03, LESSON04]
by_lesson = pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.name for lesson in LESSONS])


def read(path: Path):
    return nbformat.read(str(path), as_version=4)


def grading(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def kind(cell) -> str:
    meta = grading(cell)
    if meta.get("grade") and meta.get("solution"):
        return "manual"
    if meta.get("grade"):
        return "autograded"
    if meta.get("solution"):
        return "solution"
    return "locked" if meta.get("locked") else "plain"


def offline_env(monkeypatch):
    """No key, no network: the kernel inherits this process's environment, and imports this checkout's course/."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("COURSE_OFFLINE", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))


def copy_lesson(lesson: Lesson, source_dir: Path, target: Path) -> Path:
    shutil.copytree(source_dir, target)
    return target / lesson.notebook


def new_client(nb, folder: Path) -> NotebookClient:
    return NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                          resources={"metadata": {"path": str(folder)}})


def solution_regions(source: str) -> list[str]:
    return re.findall(r"### BEGIN SOLUTION\n(.*?)\n[ \t]*### END SOLUTION", source, flags=re.S)


# --- the source notebook ------------------------------------------------------------------

@by_lesson
def test_graded_cells_keep_the_contract(lesson):
    cells = {grading(c)["grade_id"]: c for c in read(lesson.source_dir / lesson.notebook).cells if grading(c)}
    assert set(cells) == set(lesson.graded_cells)
    for grade_id, (cell_type, expected_kind, points) in lesson.graded_cells.items():
        cell = cells[grade_id]
        assert (cell.cell_type, kind(cell), grading(cell).get("points")) == (cell_type, expected_kind, points), grade_id
        assert grading(cell)["schema_version"] == 3
    assert sum(p for _, _, p in lesson.graded_cells.values() if p) == lesson.total_points
    order = [grading(c)["grade_id"] for c in read(lesson.source_dir / lesson.notebook).cells if grading(c)]
    for chain in lesson.orders:
        assert sorted(chain, key=order.index) == list(chain), chain


@by_lesson
def test_multiple_choice_options_do_not_give_the_answer_away(lesson):
    """Options of similar length; the right one is not the longest; the answer is one of them."""
    cells = read(lesson.source_dir / lesson.notebook).cells
    for number, cell in enumerate(cells):
        grade_id = grading(cell).get("grade_id")
        if grade_id not in lesson.questions:
            continue
        options_cell = next(c for c in reversed(cells[:number]) if c.cell_type == "markdown" and "- **A.**" in c.source)
        options = dict(re.findall(r"^- \*\*([A-D])\.\*\* (.+)$", options_cell.source, flags=re.M))
        assert sorted(options) == ["A", "B", "C", "D"], grade_id
        lengths = {letter: len(text.replace("`", "")) for letter, text in options.items()}
        # the solution's answer, not the example in the comment above it ("例如：… = "A"")
        (solution,) = solution_regions(cell.source)
        answer = re.search(rf'{lesson.questions[grade_id]} = "([A-D])"', solution).group(1)
        assert max(lengths.values()) <= 1.25 * min(lengths.values()), (grade_id, lengths)
        assert lengths[answer] < max(lengths.values()) or list(lengths.values()).count(lengths[answer]) > 1, \
            (grade_id, "the right option is the longest", lengths)


@by_lesson
def test_every_graded_cell_is_in_the_points_table_and_the_objectives_map(lesson):
    header = read(lesson.source_dir / lesson.notebook).cells[0].source
    graded = {g for g, (_, k, _) in lesson.graded_cells.items() if k in ("autograded", "manual")}
    named = set(re.findall(r"`(\w+)`", header))
    assert graded <= named, f"not in the header's points table: {graded - named}"
    if lesson is LESSON03:  # its map names answers: it is in the instructor's grading guide only
        assert "学习目标与评分单元格的对应" not in header
        objectives = OBJECTIVES
    else:
        objectives = header[header.index("### 学习目标与评分单元格的对应"):]
    assert graded <= set(re.findall(r"`(\w+)`", objectives)), graded - set(re.findall(r"`(\w+)`", objectives))
    rows = [line for line in objectives.splitlines() if line.startswith("| 目标")]
    assert len(rows) == len(re.findall(r"^\d+\. ", header, flags=re.M)), "one row per objective of cell 0"
    for row in rows:
        assert set(re.findall(r"`(\w+)`", row)) & graded, row
    assert f"共 {lesson.total_points} 分" in header
    points = dict(re.findall(r"^\| `(test_\w+)` \| .+? \| (\d+) \| 自动 \|$", header, flags=re.M))
    assert points == {g: str(p) for g, (_, k, p) in lesson.graded_cells.items() if k == "autograded"}, points


@by_lesson
def test_definition_cells_only_define(lesson):
    """The reference solution is loaded by exec'ing these cells: no demo, no print, no agent run in them."""
    for cell in definition_cells(lesson.source_dir / lesson.notebook):
        for node in ast.parse(cell.source).body:
            assert isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.FunctionDef, ast.ClassDef)), \
                f"{grading(cell)['grade_id']}: line {node.lineno} does something at load time"


@by_lesson
def test_solution_cells_leave_a_chinese_stub_in_release(lesson):
    source = {grading(c)["grade_id"]: c for c in read(lesson.source_dir / lesson.notebook).cells if grading(c)}
    release = {grading(c)["grade_id"]: c for c in read(lesson.release_dir / lesson.notebook).cells if grading(c)}
    for grade_id, cell in source.items():
        if kind(cell) != "solution":
            continue
        stub = release[grade_id].source
        assert STUB in stub and "请在这里写你的代码" in stub, grade_id
        kept = [line for line in stub.splitlines() if line.strip() and STUB not in line and "NotImplementedError" not in line]
        assert any(re.search(r"[\u4e00-\u9fff]", line) for line in kept), f"{grade_id}: no Chinese hint left for the student"


@by_lesson
def test_source_notebook_runs_offline_top_to_bottom(lesson, tmp_path, monkeypatch):
    offline_env(monkeypatch)
    temporary = tmp_path / "tmp"  # the kernel's temp folder: what the demos and checks leave there is seen
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    path = copy_lesson(lesson, lesson.source_dir, tmp_path / lesson.name)
    nb = read(path)
    started = time.monotonic()
    new_client(nb, path.parent).execute()  # ends with the kernel shut down
    seconds = time.monotonic() - started
    print(f"\n{lesson.name} source notebook: {len(nb.cells)} cells in {seconds:.1f} s")
    for cell in nb.cells:
        if kind(cell) == "autograded":
            text = "".join(o.get("text", "") for o in cell.outputs)
            assert "✓" in text, f"{grading(cell)['grade_id']} printed no pass mark: {text!r}"
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(p.name for p in lesson.source_dir.iterdir()), \
        "the notebook left files in its folder (demos belong in a temp folder)"
    left = [p.name for p in temporary.iterdir() if p.name.startswith((f"{lesson.name}-demo-", "check-"))]
    assert left == [], f"the demo folder or a visible check's folder outlived the kernel: {left}"


# --- release/ -----------------------------------------------------------------------------

def generate_release(lesson: Lesson, course_dir: Path) -> Path:
    shutil.copytree(ROOT / "source", course_dir / "source")
    shutil.copy(ROOT / "nbgrader_config.py", course_dir)
    bin_dir = Path(sys.executable).parent  # nbgrader runs alembic by name: the venv's bin goes first
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run([str(bin_dir / "nbgrader"), "generate_assignment", lesson.name, "--force"], cwd=course_dir,
                   env=env, check=True, capture_output=True, text=True)
    return course_dir / "release" / lesson.name


@by_lesson
def test_release_is_what_nbgrader_generates(lesson, tmp_path):
    generated = generate_release(lesson, tmp_path / "course")
    names = sorted(p.name for p in generated.iterdir())
    assert names == sorted(p.name for p in lesson.release_dir.iterdir()), "run `make release` and commit release/"
    for name in names:
        if name.endswith(".ipynb"):
            fresh, committed = read(generated / name), read(lesson.release_dir / name)
            assert fresh.metadata == committed.metadata, name
            assert len(fresh.cells) == len(committed.cells), name
            for number, (a, b) in enumerate(zip(fresh.cells, committed.cells)):
                assert (a.cell_type, a.get("id"), a.source, a.metadata) == \
                       (b.cell_type, b.get("id"), b.source, b.metadata), f"{name} cell {number}: run `make release`"
        else:
            assert (generated / name).read_bytes() == (lesson.release_dir / name).read_bytes(), name


@by_lesson
def test_release_holds_no_solution_and_no_hidden_test(lesson):
    source = read(lesson.source_dir / lesson.notebook)
    release_text = (lesson.release_dir / lesson.notebook).read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in release_text
    public_lines = {line.strip() for cell in source.cells if not grading(cell).get("solution")
                    for line in cell.source.splitlines()}
    solution_lines = []
    for cell in source.cells:
        if not grading(cell).get("solution"):
            continue
        regions = solution_regions(cell.source) or [cell.source]  # a written answer is all solution
        solution_lines += [line.strip() for region in regions for line in region.splitlines()]
    distinctive = [line for line in solution_lines if len(line) >= 8 and line not in public_lines]
    assert len(distinctive) > 40  # the check below looks at something
    release_lines = {line.strip() for cell in read(lesson.release_dir / lesson.notebook).cells
                     for line in cell.source.splitlines()}
    leaked = [line for line in distinctive if line in release_lines]
    assert not leaked, f"solution lines in release/: {leaked}"


@by_lesson
def test_release_runs_until_the_first_cell_a_student_writes(lesson, tmp_path, monkeypatch):
    offline_env(monkeypatch)
    path = copy_lesson(lesson, lesson.release_dir, tmp_path / lesson.name)
    nb = read(path)
    first_stub = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and STUB in c.source)
    client = new_client(nb, path.parent)
    failure = None
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                assert index >= first_stub, f"cell {index} fails before any student code: {error}"
                failure = error
                break
    # The first check after the first stub says, in Chinese, that the function is not written yet.
    assert failure is not None and failure.ename == "CheckFailed", failure
    assert lesson.first_failure in failure.evalue
    assert "Traceback" not in failure.traceback  # a failed check shows its message, not a stack of frames


@by_lesson
@pytest.mark.parametrize("side", ["source", "release"])
def test_notebooks_are_committed_without_outputs(lesson, side):
    for cell in read(ROOT / side / lesson.name / lesson.notebook).cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.get("id")


# --- the glossary -------------------------------------------------------------------------

def table_rows(markdown: str) -> list[str]:
    start = markdown.index("| 术语 | English | 含义 |")
    rows = []
    for line in markdown[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line.strip())
    return rows


@by_lesson
def test_the_notebook_glossary_is_the_course_glossary(lesson):
    course_rows = table_rows((ROOT / "GLOSSARY.md").read_text(encoding="utf-8"))
    notebook_rows = table_rows(read(lesson.source_dir / lesson.notebook).cells[-1].source)
    assert notebook_rows and set(notebook_rows) <= set(course_rows), set(notebook_rows) - set(course_rows)
    terms = [row.split("|")[1].strip() for row in course_rows]
    assert len(terms) == len(set(terms)), "a term is defined twice"


@by_lesson
def test_each_term_is_glossed_at_most_once_and_in_the_glossary_form(lesson):
    """「中文（English）」 appears once per term, at its first use, and in the form GLOSSARY.md gives it."""
    course = {row.split("|")[1].strip(): row.split("|")[2].strip() for row in
              table_rows((ROOT / "GLOSSARY.md").read_text(encoding="utf-8"))}
    prose = [c.source for c in read(lesson.source_dir / lesson.notebook).cells[:-1] if c.cell_type == "markdown"]
    text = "\n".join(line for cell in prose for line in cell.splitlines() if not line.startswith("#"))  # not titles
    for term, english in course.items():
        glossed = text.count(f"{term}（{english}）")
        assert glossed <= 1, f"{term} is glossed {glossed} times"
        if glossed:
            assert text.index(f"{term}（{english}）") <= text.index(term), f"{term} is used before it is glossed"
    for english in re.findall(r"[\u4e00-\u9fff]+（([A-Za-z][A-Za-z -]+)）", text):
        if english in course.values():
            continue
        assert english.lower() not in {e.lower() for e in course.values()}, english


def test_no_line_of_the_reference_or_the_hidden_tests_inside_the_released_prose():
    """The grader's leak check reads the feedback, which shows the lesson's prose: a solution line quoted there counts.
    (The locked incident cell shares lines with the reference on purpose; only the prose is checked.)"""
    from autograder.leaks import private_lines
    release = LESSON03.release_dir / LESSON03.notebook  # the leak check knows lesson 3's reference
    text = "\n".join(cell.source for cell in read(release).cells if cell.cell_type == "markdown")
    assert private_lines().any_in(text) == []
