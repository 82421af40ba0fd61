"""autograder.nbgrader_caches: nbgrader's results with less work in the process that grades a class."""
import jsonschema
import pytest
from nbformat.v4 import new_code_cell
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat import MetadataValidator

from autograder import nbgrader_caches

nbgrader_caches.install()


def test_gradebooks_of_one_database_share_an_engine_and_a_relative_path_means_the_current_folder(tmp_path,
                                                                                                 monkeypatch):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "a")
    with Gradebook("sqlite:///gradebook.db") as first:
        first.add_student("alice")
        engine = first.engine
    with Gradebook("sqlite:///gradebook.db") as again:  # after the first one closed
        assert again.engine is engine and [s.id for s in again.students] == ["alice"]
    monkeypatch.chdir(tmp_path / "b")
    with Gradebook("sqlite:///gradebook.db") as other:
        assert other.engine is not engine and other.students == []
    assert (tmp_path / "b" / "gradebook.db").exists()


def grade_cell(**changes):
    metadata = {"grade": True, "solution": False, "locked": True, "points": 2, "grade_id": "test_x",
                "schema_version": 3, **changes}
    return new_code_cell("assert True", metadata={"nbgrader": metadata})


@pytest.mark.parametrize("changes", [{}, {"points": "两分"}, {"grade_id": 7}, {"task": "yes"}])
def test_cell_metadata_is_judged_as_jsonschema_validate_judges_it(changes):
    cell = grade_cell(**changes)
    validator = MetadataValidator()
    try:
        jsonschema.validate(cell.metadata["nbgrader"], validator.schema)
        expected = None
    except jsonschema.ValidationError as error:
        expected = error.message
    try:
        validator.validate_cell(cell)
        found = None
    except jsonschema.ValidationError as error:
        found = error.message
    assert found == expected
    assert (expected is None) == (changes == {})


def test_the_schema_itself_is_checked_once(monkeypatch):
    checked = []
    kind = jsonschema.validators.validator_for(MetadataValidator().schema)
    monkeypatch.setattr(kind, "check_schema", classmethod(lambda cls, schema: checked.append(schema)))
    monkeypatch.setattr(nbgrader_caches.nbgrader.nbgraderformat.common, "jsonschema", nbgrader_caches._CheckedSchemas())
    for _ in range(5):
        MetadataValidator().validate_cell(grade_cell())
    assert len(checked) == 1
