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
