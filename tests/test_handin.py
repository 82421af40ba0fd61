"""Hand-in without a Hub: `lab.py handin` -> `nbgrader zip_collect` (make collect) -> make grade -> manual
grading -> make feedback (autograder.feedback), for both lessons.

Lesson 3: a full-marks student hands in twice (the later zip must win), a second student's zip comes the
way an LMS delivers it (Canvas-style prefix and "-1" suffix, inside a Moodle-style folder of its own), and a
zip whose name names no student is skipped. Lesson 4: the first student hands it in, the second does not,
and a lesson-3 zip left in lesson 4's folder is skipped.
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

from autograder.lessons import lesson
from autograder.notebook_code import full_marks_notebook
from grading.grading_corpus import build
from student_bundle import lab
from test_class_grading import environment, run

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "resume-from-checkpoint.ipynb"
LESSON4 = lesson("lesson04")
NOTEBOOK4 = f"{LESSON4.notebook}.ipynb"


def answered(text: str) -> str:
    """A submission whose written answers are written (a stub left as released is scored 0 by nbgrader
    itself, with nothing for a grader to do)."""
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = "存档点 B 之后没有悬空调用，所以直接继续。"
    return nbformat.writes(notebook)


def lesson4_full_marks() -> str:
    return answered(nbformat.writes(full_marks_notebook(LESSON4)))


def student_folder(tmp_path: Path, name: str, notebook: str, assignment: str = "lesson03") -> Path:
    """A student's lesson folder as the bundle lays it out, with their saved notebook and what a run leaves."""
    folder = tmp_path / name / assignment
    shutil.copytree(ROOT / "release" / assignment, folder)
    (folder / f"{lesson(assignment).notebook}.ipynb").write_text(notebook, encoding="utf-8")
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
    elsewhere = shutil.copytree(student_folder(tmp_path, "b", build("blank")), tmp_path / "my-work")
    with pytest.raises(SystemExit, match="lesson04"):  # a zip named after no lesson would be skipped by zip_collect
        lab.handin(elsewhere, "s01", tmp_path)
    assert lab.handin(elsewhere / ".." / "b" / "lesson03", "s01", tmp_path, when=0).name.startswith("lesson03_s01_")


def collector_pattern() -> re.Pattern:
    """FileNameCollectorPlugin.named_regexp as nbgrader_config.py sets it."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    return re.compile(config.FileNameCollectorPlugin.named_regexp)


def test_the_pattern_reads_what_handin_writes_and_what_an_lms_delivers(tmp_path):
    pattern = collector_pattern()
    made = lab.handin(student_folder(tmp_path, "a", build("blank")), "li.si-2_b", tmp_path, when=1_700_000_000)
    found = pattern.match(f"/c/downloaded/lesson03/extracted/{made.stem}/{NOTEBOOK}")
    assert found.groupdict() == {"lesson": "lesson03", "student_id": "li.si-2_b",
                                 "timestamp": "20231114T221320Z", "file_id": NOTEBOOK}
    found = pattern.match("/c/downloaded/lesson03/extracted/Wang Wu_42_assignsubmission_file_/"
                          "wangwu_42_7_lesson03_wang_wu_20261201T101010Z-1/" + NOTEBOOK)
    assert found.groupdict() == {"lesson": "lesson03", "student_id": "wang_wu",
                                 "timestamp": "20261201T101010Z", "file_id": NOTEBOOK}
    assert not pattern.match(f"/c/downloaded/lesson03/extracted/notes/{NOTEBOOK}")
    made = lab.handin(student_folder(tmp_path, "b", lesson4_full_marks(), "lesson04"), "s1", tmp_path, when=0)
    assert made.name == "lesson04_s1_19700101T000000Z.zip"
    found = pattern.match(f"/c/downloaded/lesson04/extracted/x_{made.stem}-2/{NOTEBOOK4}")
    assert found["student_id"] == "s1" and found["file_id"] == NOTEBOOK4
    # each lesson's zip_collect takes only its own lesson's zips, whatever the notebook inside is called
    assert not pattern.match(f"/c/downloaded/lesson03/extracted/{made.stem}/{NOTEBOOK4}")
    assert not pattern.match(f"/c/downloaded/lesson04/extracted/lesson03_s1_20261201T101010Z/{NOTEBOOK}")


def zip_collect(course: Path, assignment: str) -> subprocess.CompletedProcess:
    """What `make collect` runs for each lesson."""
    return subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "zip_collect", assignment, "--force"],
                          cwd=course, env=environment(), capture_output=True, text=True, timeout=300)


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
    lab.handin(student_folder(tmp, "s01-again", answered(build("full_reference"))), "s01", archive,
               when=1_700_000_100)
    lms = archive / "Li Si_42_assignsubmission_file_"
    lms.mkdir()
    theirs = lab.handin(student_folder(tmp, "s02", answered(build("wrong_incident_rerun"))), "li_si", tmp,
                        when=1_700_000_000)
    theirs.rename(lms / f"lisi_42_7_{theirs.stem}-1.zip")
    shutil.copy(first, archive / "homework.zip")  # no student in the name
    archive4 = course / "downloaded" / "lesson04" / "archive"
    archive4.mkdir(parents=True)
    lab.handin(student_folder(tmp, "s01-lesson4", lesson4_full_marks(), "lesson04"), "s01", archive4,
               when=1_700_000_200)
    shutil.copy(first, archive4)  # lesson 3's zip in lesson 4's folder; li_si has not handed lesson 4 in
    collect = {assignment: zip_collect(course, assignment) for assignment in ("lesson03", "lesson04")}
    for done in collect.values():
        assert done.returncode == 0, done.stderr[-3000:]
    return course, collect


def test_zip_collect_sorts_the_hand_ins_by_student_and_lesson_and_keeps_the_newest(collected):
    course, collect = collected
    submitted = course / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["li_si", "s01"]
    for student in ("li_si", "s01"):
        assert sorted(p.name for p in (submitted / student / "lesson03").iterdir()) == [NOTEBOOK, "timestamp.txt"]
    assert (submitted / "s01" / "lesson03" / NOTEBOOK).read_text(encoding="utf-8") == answered(build("full_reference"))
    assert (submitted / "s01" / "lesson03" / "timestamp.txt").read_text().startswith("2023-11-14 22:15:00")
    assert "homework" in collect["lesson03"].stderr and "Skipped" in collect["lesson03"].stderr
    assert sorted(p.name for p in (submitted / "s01" / "lesson04").iterdir()) == [NOTEBOOK4, "timestamp.txt"]
    assert (submitted / "s01" / "lesson04" / NOTEBOOK4).read_text(encoding="utf-8") == lesson4_full_marks()
    assert not (submitted / "li_si" / "lesson04").exists()
    assert "lesson03_s01_" in collect["lesson04"].stderr and "Skipped" in collect["lesson04"].stderr


HANDED_IN = (("li_si", "lesson03"), ("s01", "lesson03"), ("s01", "lesson04"))  # (student, lesson)
FIRST_QUESTION = {"lesson03": ("resume-from-checkpoint", "why_cpA"), "lesson04": (LESSON4.notebook, "why_S2")}


@pytest.fixture(scope="module")
def graded(collected):
    course, _ = collected
    return course, run(course, "-m", "autograder.classgrade", "--workers", "2", "--no-progress")


def csv_scores(course: Path) -> dict:
    """{(lesson, student): score} from grades.csv."""
    with open(course / "grades.csv", encoding="utf-8", newline="") as grades:
        return {(row["assignment"], row["student_id"]): float(row["score"]) for row in csv.DictReader(grades)}


def recorded(course: Path, assignment: str, student: str) -> dict:
    return json.loads((course / ".classgrade" / assignment / f"{student}.json").read_text())["report"]


def test_collected_hand_ins_are_graded_and_get_feedback_in_chinese(graded):
    course, result = graded
    # li_si handed lesson 4 not in: 0 in grades.csv, as stock nbgrader has it, and neither feedback nor a record
    assert sorted(csv_scores(course)) == [(a, s) for a in ("lesson03", "lesson04") for s in ("li_si", "s01")]
    assert csv_scores(course)["lesson04", "li_si"] == 0
    assert not (course / "feedback" / "li_si" / "lesson04").exists()
    assert not (course / ".classgrade" / "lesson04" / "li_si.json").exists()
    full, wrong = (recorded(course, "lesson03", s) for s in ("s01", "li_si"))
    assert full["auto_score"] == full["auto_max"] > wrong["auto_score"] and not full["errors"] + wrong["errors"]
    for student, assignment in HANDED_IN:
        page = course / "feedback" / student / assignment / f"{FIRST_QUESTION[assignment][0]}.html"
        assert "你的答案" in page.read_text(encoding="utf-8") and "Student's answer" not in page.read_text()
    assert "待人工批改" in result.stdout and "make feedback" in result.stdout
    handed_in = recorded(course, "lesson04", "s01")
    assert handed_in["auto_score"] == handed_in["auto_max"] == 25 and not handed_in["errors"]
    for assignment, other in (("lesson03", "lesson04"), ("lesson04", "lesson03")):
        page = (course / "reports" / f"{assignment}.html").read_text(encoding="utf-8")
        assert f"{assignment} 全班评分报告" in page and f'href="{other}.html"' in page


def test_make_feedback_after_manual_grading_updates_pages_grades_and_report(graded):
    course, _ = graded
    before = csv_scores(course)
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(db_url) as gradebook:  # what a grader does in the formgrader, for every written answer
        for student, assignment in HANDED_IN:
            notebook, question = FIRST_QUESTION[assignment]
            for grade in gradebook.find_submission_notebook(notebook, assignment, student).grades:
                if grade.auto_score is None:
                    grade.manual_score = grade.max_score
            comment = gradebook.find_comment(question, notebook, assignment, student)
            comment.manual_comment = f"写得清楚（{student}，{assignment}）"
        gradebook.db.commit()
    result = run(course, "-m", "autograder.feedback")
    assert result.stdout.count("都已批改完") == 2 and "待人工批改" not in result.stdout
    after = csv_scores(course)
    assert after["lesson03", "s01"] == 28 and after["lesson04", "s01"] == 30 and after["lesson04", "li_si"] == 0, after
    assert all(after[assignment, student] > before[assignment, student] for student, assignment in HANDED_IN)
    for student, assignment in HANDED_IN:
        page = course / "feedback" / student / assignment / f"{FIRST_QUESTION[assignment][0]}.html"
        assert f"写得清楚（{student}，{assignment}）" in page.read_text(encoding="utf-8")
    for assignment in ("lesson03", "lesson04"):
        report = (course / "reports" / f"{assignment}.html").read_text(encoding="utf-8")
        assert "待人工评分</td>" not in report
