"""autograder.lms_export through `nbgrader export --exporter`: the file Canvas and Moodle import."""
import csv
import os
import subprocess
import sys
from pathlib import Path

from nbgrader.api import Gradebook

ROOT = Path(__file__).resolve().parent.parent


BIN = Path(sys.executable).parent


def lms_export(course: Path) -> list:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([str(BIN / "nbgrader"), "export",
                           "--exporter=autograder.lms_export.LmsExport", "--to=lms-grades.csv"],
                          cwd=course, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(course / "lms-grades.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_nbgrader_export_writes_one_row_per_student_with_the_total_after_manual_grading(tmp_path, monkeypatch):
    db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")  # a new gradebook runs `alembic` by name
    with Gradebook(db_url) as gradebook:
        gradebook.add_assignment("lesson03")
        gradebook.add_notebook("resume-from-checkpoint", "lesson03")
        gradebook.add_grade_cell("test_save_load", "resume-from-checkpoint", "lesson03", max_score=4, cell_type="code")
        gradebook.add_grade_cell("why_cpA", "resume-from-checkpoint", "lesson03", max_score=1, cell_type="markdown")
        gradebook.add_student("s01", first_name="三", last_name="张", email="s01@example.edu")
        gradebook.add_student("s02")
        gradebook.add_student("s03")  # never submitted
        for student, auto, manual in (("s01", 4, 0.5), ("s02", 2, None)):
            gradebook.add_submission("lesson03", student)
            gradebook.find_grade("test_save_load", "resume-from-checkpoint", "lesson03", student).auto_score = auto
            gradebook.find_grade("why_cpA", "resume-from-checkpoint", "lesson03", student).manual_score = manual
        gradebook.add_assignment("lesson04")  # released (generate_assignment adds it), nobody handed it in yet
        gradebook.add_notebook("effects-and-idempotency", "lesson04")
        gradebook.add_grade_cell("test_effects", "effects-and-idempotency", "lesson04", max_score=2, cell_type="code")
        gradebook.db.commit()
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.db_url = {db_url!r}\n")
    rows = lms_export(tmp_path)
    assert [(r["Student"], r["SIS User ID"], r["SIS Login ID"], r["Email"], r["lesson03"]) for r in rows] == [
        ("三 张", "s01", "s01", "s01@example.edu", "4.5"), ("s02", "s02", "s02", "", "2"), ("s03", "s03", "s03", "", "0")]
    assert list(rows[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Email", "lesson03"]

    with Gradebook(db_url) as gradebook:  # lesson 4 handed in: its column, 0 for those who did not hand it in
        gradebook.add_submission("lesson04", "s02")
        gradebook.find_grade("test_effects", "effects-and-idempotency", "lesson04", "s02").auto_score = 2
        gradebook.db.commit()
    rows = lms_export(tmp_path)
    assert [(r["SIS User ID"], r["lesson03"], r["lesson04"]) for r in rows] == [
        ("s01", "4.5", "0"), ("s02", "2", "2"), ("s03", "0", "0")]
