"""autograder.lms_export through `nbgrader export --exporter`: the file Canvas and Moodle import."""
import csv
import os
import subprocess
import sys
from pathlib import Path

from nbgrader.api import Gradebook

ROOT = Path(__file__).resolve().parent.parent


BIN = Path(sys.executable).parent


def test_nbgrader_export_writes_one_row_per_student_with_the_total_after_manual_grading(tmp_path, monkeypatch):
    db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")  # a new gradebook runs `alembic` by name
    env = dict(os.environ, PYTHONPATH=str(ROOT))
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
        gradebook.db.commit()
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.db_url = {db_url!r}\n")
    done = subprocess.run([str(BIN / "nbgrader"), "export",
                           "--exporter=autograder.lms_export.LmsExport", "--to=lms-grades.csv"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(tmp_path / "lms-grades.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["Student"], r["SIS User ID"], r["SIS Login ID"], r["Email"], r["lesson03"]) for r in rows] == [
        ("三 张", "s01", "s01", "s01@example.edu", "4.5"), ("s02", "s02", "s02", "", "2"), ("s03", "s03", "s03", "", "0")]
    assert list(rows[0])[:6] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Email"]
