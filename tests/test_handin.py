"""Hand-in without a Hub: `lab.py handin` -> `nbgrader zip_collect` (make collect) -> make grade -> manual
grading -> make feedback (autograder.feedback).

A full-marks student hands in twice (the later zip must win), a second student's zip comes the way an
LMS delivers it (Canvas-style prefix and "-1" suffix, inside a Moodle-style folder of its own), and a
zip whose name names no student is skipped.
"""
import csv
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from traitlets.config.loader import PyFileConfigLoader

from grading.grading_corpus import build
from student_bundle import lab
from test_class_grading import environment, run

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "resume-from-checkpoint.ipynb"


def answered(variant: str) -> str:
    """A corpus submission whose written answers are written (a stub left as released is scored 0 by nbgrader
    itself, with nothing for a grader to do)."""
    notebook = nbformat.reads(build(variant), as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = "存档点 B 之后没有悬空调用，所以直接继续。"
    return nbformat.writes(notebook)


def student_folder(tmp_path: Path, name: str, notebook: str) -> Path:
    """A student's lesson03/ as the bundle lays it out, with their saved notebook and what a run leaves."""
    folder = tmp_path / name / "lesson03"
    shutil.copytree(ROOT / "release" / "lesson03", folder)
    (folder / NOTEBOOK).write_text(notebook, encoding="utf-8")
    (folder / "checkpoint.json").write_text("{}")
    return folder


def test_the_name_says_student_and_time_and_the_zip_holds_only_the_notebooks(tmp_path):
    folder = student_folder(tmp_path, "a", build("blank"))
    made = lab.handin(folder, "s-01.x_y", tmp_path, when=0)
    assert made.name == "lesson03_s-01.x_y_19700101T000000Z.zip"
    with zipfile.ZipFile(made) as archive:
        assert archive.namelist() == [NOTEBOOK]
    for bad in ("", "../x", "张三", "a b", "-x"):
        with pytest.raises(SystemExit):
            lab.handin(folder, bad, tmp_path)
    (folder / NOTEBOOK).write_text('{"cells": [')  # half-saved: refused, not handed in
    with pytest.raises(SystemExit):
        lab.handin(folder, "s01", tmp_path)


def collector_pattern() -> re.Pattern:
    """FileNameCollectorPlugin.named_regexp as nbgrader_config.py sets it."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    return re.compile(config.FileNameCollectorPlugin.named_regexp)


def test_the_pattern_reads_what_handin_writes_and_what_an_lms_delivers(tmp_path):
    pattern = collector_pattern()
    made = lab.handin(student_folder(tmp_path, "a", build("blank")), "li.si-2_b", tmp_path, when=1_700_000_000)
    found = pattern.match(f"/c/downloaded/lesson03/extracted/{made.stem}/{NOTEBOOK}")
    assert found.groupdict() == {"student_id": "li.si-2_b", "timestamp": "20231114T221320Z", "file_id": NOTEBOOK}
    found = pattern.match("/c/downloaded/lesson03/extracted/Wang Wu_42_assignsubmission_file_/"
                          "wangwu_42_7_lesson03_wang_wu_20261201T101010Z-1/" + NOTEBOOK)
    assert found.groupdict() == {"student_id": "wang_wu", "timestamp": "20261201T101010Z", "file_id": NOTEBOOK}
    assert not pattern.match(f"/c/downloaded/lesson03/extracted/lesson04_s1_20261201T101010Z/{NOTEBOOK}")
    assert not pattern.match(f"/c/downloaded/lesson03/extracted/notes/{NOTEBOOK}")


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("handin")
    course = tmp / "course"
    course.mkdir()
    for part in ("source", "release"):
        shutil.copytree(ROOT / part, course / part)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    archive = course / "downloaded" / "lesson03" / "archive"
    archive.mkdir(parents=True)
    first = lab.handin(student_folder(tmp, "s01-first", build("blank")), "s01", archive, when=1_700_000_000)
    lab.handin(student_folder(tmp, "s01-again", answered("full_reference")), "s01", archive, when=1_700_000_100)
    lms = archive / "Li Si_42_assignsubmission_file_"
    lms.mkdir()
    theirs = lab.handin(student_folder(tmp, "s02", answered("wrong_incident_rerun")), "li_si", tmp, when=1_700_000_000)
    theirs.rename(lms / f"lisi_42_7_{theirs.stem}-1.zip")
    shutil.copy(first, archive / "homework.zip")  # no student in the name
    collect = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "zip_collect", "lesson03", "--force"],
                             cwd=course, env=environment(), capture_output=True, text=True, timeout=300)
    assert collect.returncode == 0, collect.stderr[-3000:]
    return course, collect


def test_zip_collect_sorts_the_hand_ins_by_student_and_keeps_the_newest(collected):
    course, collect = collected
    submitted = course / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["li_si", "s01"]
    for student in ("li_si", "s01"):
        assert sorted(p.name for p in (submitted / student / "lesson03").iterdir()) == [NOTEBOOK, "timestamp.txt"]
    assert (submitted / "s01" / "lesson03" / NOTEBOOK).read_text(encoding="utf-8") == answered("full_reference")
    assert (submitted / "s01" / "lesson03" / "timestamp.txt").read_text().startswith("2023-11-14 22:15:00")
    assert "homework" in collect.stderr and "Skipped" in collect.stderr


@pytest.fixture(scope="module")
def graded(collected):
    course, _ = collected
    return course, run(course, "-m", "autograder.classgrade", "--workers", "2", "--no-progress")


def csv_scores(course: Path) -> dict:
    with open(course / "grades.csv", encoding="utf-8", newline="") as grades:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(grades)}


def test_collected_hand_ins_are_graded_and_get_feedback_in_chinese(graded):
    course, result = graded
    assert sorted(csv_scores(course)) == ["li_si", "s01"]
    full, wrong = (json.loads((course / ".classgrade" / "lesson03" / f"{s}.json").read_text())["report"]
                   for s in ("s01", "li_si"))
    assert full["auto_score"] == full["auto_max"] > wrong["auto_score"]
    for student in ("li_si", "s01"):
        page = (course / "feedback" / student / "lesson03" / "resume-from-checkpoint.html").read_text(encoding="utf-8")
        assert "你的答案" in page and "Student's answer" not in page
    assert "待人工批改" in result.stdout and "make feedback" in result.stdout


def test_make_feedback_after_manual_grading_updates_pages_grades_and_report(graded):
    course, _ = graded
    before = csv_scores(course)
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(db_url) as gradebook:  # what a grader does in the formgrader, for every written answer
        for student in ("li_si", "s01"):
            for grade in gradebook.find_submission_notebook("resume-from-checkpoint", "lesson03", student).grades:
                if grade.auto_score is None:
                    grade.manual_score = grade.max_score
            comment = gradebook.find_comment("why_cpA", "resume-from-checkpoint", "lesson03", student)
            comment.manual_comment = f"写得清楚（{student}）"
        gradebook.db.commit()
    result = run(course, "-m", "autograder.feedback")
    assert "都已批改完" in result.stdout and "待人工批改" not in result.stdout
    after = csv_scores(course)
    assert after["s01"] == 28 and all(after[s] > before[s] for s in before), (before, after)
    for student in ("li_si", "s01"):
        page = (course / "feedback" / student / "lesson03" / "resume-from-checkpoint.html").read_text(encoding="utf-8")
        assert f"写得清楚（{student}）" in page
    report = (course / "reports" / "lesson03.html").read_text(encoding="utf-8")
    assert "待人工评分</td>" not in report
