"""autograder.submission.recover_renamed_cells: an answer cell whose grade_id changed is found again."""
import nbformat
import pytest

from autograder.notebook_code import RELEASE_NOTEBOOK, full_marks_notebook, reference_solutions
from autograder.submission import recover_renamed_cells, submission_from_notebook


def grade_ids(notebook) -> list:
    return [c.metadata.get("nbgrader", {}).get("grade_id") for c in notebook.cells]


def cell_of(notebook, grade_id):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


@pytest.fixture
def blank():
    return nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)


@pytest.mark.parametrize("grade_id", sorted(reference_solutions()))
@pytest.mark.parametrize("how", ["renamed", "metadata_deleted"])
def test_each_answer_cell_is_recovered_by_content_and_place(blank, grade_id, how):
    notebook = full_marks_notebook()
    expected_ids = grade_ids(notebook)
    cell = cell_of(notebook, grade_id)
    if how == "renamed":
        cell.metadata["nbgrader"]["grade_id"] = f"{grade_id}_v2"
    else:
        if cell.cell_type == "markdown":
            pytest.skip("a written answer without its metadata is an ordinary markdown cell")
        del cell.metadata["nbgrader"]
    notes = recover_renamed_cells(notebook, blank)
    assert grade_ids(notebook) == expected_ids
    assert cell_of(notebook, grade_id).source == reference_solutions()[grade_id]
    assert len(notes) == 1 and grade_id in notes[0]
    assert submission_from_notebook(notebook).notes == []


def test_a_cell_that_defines_something_else_is_not_taken_for_the_answer(blank):
    notebook = full_marks_notebook()
    cell = cell_of(notebook, "reconcile")
    cell.metadata["nbgrader"]["grade_id"] = "my_experiment"
    cell.source = "def describe(cp):\n    return str(cp)\n"
    notes = recover_renamed_cells(notebook, blank)
    assert "reconcile" not in grade_ids(notebook) and "my_experiment" not in grade_ids(notebook)
    assert "my_experiment" in notes[0]
    assert any("reconcile" in note for note in submission_from_notebook(notebook).notes)


def test_the_lessons_suggested_crash_matrix_cell_defines_nothing_the_sandbox_would_run():
    """The notebook suggests a cell running crash_matrix: it works there; graded, it must neither run nor fail."""
    from autograder.submission import definitions_only

    suggested = ("from instruments.crash_matrix import crash_matrix, plot_matrix\n\n"
                 "matrix = crash_matrix(run_agent, reconcile)\nmatrix\n")
    note = next(c for c in nbformat.read(str(RELEASE_NOTEBOOK), as_version=4).cells if c.get("id") == "explore-note")
    assert "matrix = crash_matrix(run_agent, reconcile)" in note.source  # what the lesson suggests
    assert definitions_only(suggested) == ""
    kept = definitions_only("import json\nimport matplotlib.pyplot as plt\n\ndef describe(cp):\n    return json.dumps(cp)\n")
    assert "import json" in kept and "def describe" in kept and "matplotlib" not in kept


def test_an_added_cell_is_named_as_the_student_sees_it():
    from autograder.submission import cell_as_seen

    assert cell_as_seen("reconcile+1") == "你在 reconcile 后面加的第 1 个单元格"
    assert cell_as_seen("reconcile") == "单元格 reconcile"


@pytest.mark.parametrize("target, honoured", [("ckpt_io.py", True), ("-a helpers.py", True), ("../ckpt_io.py", False),
                                              ("/tmp/ckpt_io.py", False), ("lib/ckpt_io.py", False),
                                              ('"my io.py"', False), ("", False)])
def test_an_added_writefile_cell_is_run_only_for_a_file_in_the_working_folder(target, honoured):
    """%%writefile of a plain file name runs as the kernel runs it (the file is made where each scenario defines the
    cells); one writing elsewhere is left out, with a note saying so."""
    from autograder.submission import writefile_cell

    code, note, file = writefile_cell(f"%%writefile {target}\nimport os\n\ndef helper():\n    return os.sep\n")
    assert (code is not None) == honoured and (note is None) == honoured
    assert file == (target.split()[-1] if honoured else None)
    assert not honoured or code.startswith("get_ipython().run_cell_magic('writefile'")
    assert honoured or "评分时没有运行" in note
    assert writefile_cell("import os\n") == (None, None, None)


def test_a_module_written_further_down_is_named_where_its_import_raised():
    """A cell that raised importing a module an added %%writefile cell below it writes: that cell is named (run top to
    bottom, the file is not there yet); not one above it, nor for another module or another error."""
    from autograder.submission import writer_below

    cells = [{"name": name} for name in ("imports", "imports+1", "save_load", "save_load+1", "run_agent")]
    written = {"imports+1": "early.py", "save_load+1": "ckpt_io.py"}
    missing = {"type": "ModuleNotFoundError", "message": "No module named 'ckpt_io'"}
    assert writer_below("save_load", missing, cells, written) == "save_load+1"
    assert writer_below("save_load", {**missing, "message": "No module named 'ckpt_io.atomic'"}, cells,
                        written) == "save_load+1"
    assert writer_below("run_agent", missing, cells, written) is None  # written above it: another cause
    assert writer_below("save_load", {**missing, "message": "No module named 'early'"}, cells, written) is None
    assert writer_below("save_load", {"type": "ImportError", "message": "No module named 'ckpt_io'"}, cells,
                        written) is None
