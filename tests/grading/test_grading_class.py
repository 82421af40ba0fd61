"""`make grade` on a class folder: good, wrong, tampering and damaged submissions.

The whole pipeline runs for real, in a copy of the course folder: staging and repair,
`nbgrader autograde` with the judge, `nbgrader generate_feedback`, the CSV export,
the leak check and the summary.
"""
import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from autograder.leaks import private_lines
from autograder.notebook_code import ROOT

from grading_corpus import build

NOTEBOOK = "resume-from-checkpoint.ipynb"
SEED = 4242  # every student's scenarios drawn from it, as `make grade GRADE_ARGS="--seed 4242"` would
CLASS = {  # student -> (variant, how it is handed in, expected auto-graded points)
    "alice": ("full_reference", "as is", 23),
    "bruno": ("wrong_incident_rerun", "as is", 20),
    "chen": ("tamper_exit", "as is", 18),
    "dana": ("full_alternative", "renamed", 23),
    "emil": (None, "no notebook", 0),
    "fang": ("malformed_truncated", "as is", 11),
    "gita": ("full_duplicated_cell", "as is", 23),
    "hugo": ("malformed_deleted_reconcile", "as is", 15),
    "ines": ("blank", "unreadable", 0),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "source", course / "source")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for student, (variant, how, _) in CLASS.items():
        folder = course / "submitted" / student / "lesson03"
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
        if how == "no notebook":
            continue
        text = build(variant)
        if how == "unreadable":
            text = "\x00\x01 这不是笔记本 " + text[:200]
        (folder / ("lesson03 (1).ipynb" if how == "renamed" else NOTEBOOK)).write_text(text, encoding="utf-8")
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "autograder.classgrade", "--workers", "1", "--seed", str(SEED),
                          str(course)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=900)
    return course, run


def test_the_run_finishes_cleanly(graded):
    _, run = graded
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "自动评分完成" in run.stdout and "grades.csv" in run.stdout
    assert run.stdout.count(f"场景种子 {SEED}）") == len(CLASS), run.stdout[-3000:]


def test_every_student_is_exported_with_the_expected_points(graded):
    course, run = graded
    with open(course / "grades.csv", encoding="utf-8") as file:
        rows = {row["student_id"]: row for row in csv.DictReader(file)}
    assert set(rows) == set(CLASS)
    for student, (_, _, points) in CLASS.items():
        assert float(rows[student]["raw_score"]) == points, (student, run.stdout[-2000:])
        assert float(rows[student]["max_score"]) == 28.0  # 23 auto-graded + 5 for the written answers


def test_every_student_gets_feedback_without_hidden_tests(graded):
    course, _ = graded
    for student in CLASS:
        pages = list((course / "feedback" / student / "lesson03").glob("*.html"))
        assert len(pages) == 1, student
        page = pages[0].read_text(encoding="utf-8")
        assert "评分器在隔离的进程里检查了你的代码" in page
        assert private_lines().hidden_test_code_in(page) == [], student


def test_problems_are_explained_to_the_student(graded):
    course, _ = graded
    expected = {"dana": "笔记本被改名成了 lesson03 (1).ipynb", "emil": "没有找到提交的笔记本",
                "fang": "只找回了出错之前完整的", "gita": "按最后一个评分", "hugo": "没有找到答题单元格 reconcile",
                "ines": "不是合法的 JSON", "bruno": "send_email 在恢复时被重新执行了一次",
                "chen": "进程自己退出了"}
    for student, words in expected.items():
        page = next((course / "feedback" / student / "lesson03").glob("*.html")).read_text(encoding="utf-8")
        assert words in page, student


def test_the_students_files_are_left_as_they_were(graded):
    course, _ = graded
    assert (course / "submitted" / "dana" / "lesson03" / "lesson03 (1).ipynb").exists()
    assert not (course / "submitted" / "dana" / "lesson03" / NOTEBOOK).exists()
    assert json.loads((course / "build" / "grading" / "submitted" / "dana" / "lesson03" / NOTEBOOK).read_text())


def test_plain_nbgrader_commands_use_the_judge(tmp_path):
    """An instructor's own `nbgrader autograde / generate_feedback / export` grade with the judge too."""
    shutil.copytree(ROOT / "source", tmp_path / "source")
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    (tmp_path / "autograder").symlink_to(ROOT / "autograder")  # the config finds the judge next to itself
    folder = tmp_path / "submitted" / "zoe" / "lesson03"
    folder.mkdir(parents=True)
    (folder / NOTEBOOK).write_text(build("tamper_exit"), encoding="utf-8")
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    nbgrader = str(ROOT / ".venv" / "bin" / "nbgrader")
    for command in (["generate_assignment", "lesson03", "--CourseDirectory.release_directory=build/release"],
                    ["autograde", "lesson03"], ["generate_feedback", "lesson03"], ["export"]):
        run = subprocess.run([nbgrader, *command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
    with open(tmp_path / "grades.csv", encoding="utf-8") as file:
        (row,) = csv.DictReader(file)
    assert float(row["raw_score"]) == 18
    page = (tmp_path / "feedback" / "zoe" / "lesson03" / "resume-from-checkpoint.html").read_text(encoding="utf-8")
    assert "进程自己退出了" in page and private_lines().hidden_test_code_in(page) == []
