"""Hand-in without a Hub: `lab.py handin` -> `nbgrader zip_collect` (make collect) -> make grade -> feedback.

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

import pytest

from grading.grading_corpus import build
from student_bundle import lab
from test_class_grading import environment, run

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "resume-from-checkpoint.ipynb"


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


def test_the_pattern_reads_what_an_lms_delivers():
    pattern = re.compile(lab.handin_pattern("lesson03"))
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
    lab.handin(student_folder(tmp, "s01-again", build("full_reference")), "s01", archive, when=1_700_000_100)
    lms = archive / "Li Si_42_assignsubmission_file_"
    lms.mkdir()
    theirs = lab.handin(student_folder(tmp, "s02", build("wrong_incident_rerun")), "li_si", tmp, when=1_700_000_000)
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
    assert (submitted / "s01" / "lesson03" / NOTEBOOK).read_text(encoding="utf-8") == build("full_reference")
    assert (submitted / "s01" / "lesson03" / "timestamp.txt").read_text().startswith("2023-11-14 22:15:00")
    assert "homework" in collect.stderr and "Skipped" in collect.stderr


def test_collected_hand_ins_are_graded_and_get_feedback(collected):
    course, _ = collected
    run(course, "-m", "autograder.classgrade", "--workers", "2", "--no-progress")
    with open(course / "grades.csv", encoding="utf-8", newline="") as grades:
        assert sorted(row["student_id"] for row in csv.DictReader(grades)) == ["li_si", "s01"]
    full, wrong = (json.loads((course / ".classgrade" / "lesson03" / f"{s}.json").read_text())["report"]
                   for s in ("s01", "li_si"))
    assert full["auto_score"] == full["auto_max"] > wrong["auto_score"]
    for student in ("li_si", "s01"):
        assert (course / "feedback" / student / "lesson03" / "resume-from-checkpoint.html").is_file()
