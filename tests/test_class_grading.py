"""Class-scale `make grade` (autograder.classgrade) against serial grading, on a small class.

The class comes from the grading corpus (tests/grading): full marks, a repaired file, two
students with the same plausible mistake, wrong quiz answers, a blank notebook, code that
hangs at definition, and a file nobody can read. The serial reference is the same grader
with one worker (`--workers 1`).
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from nbgrader.api import Gradebook

from autograder import grade
from autograder.classgrade import Interrupts
from autograder.leaks import private_lines
from autograder.lessons import lesson
from autograder.records import STATE_DIR
from autograder.scores import class_scores
from grading.grading_corpus import build
from postgres_harness import LocalPostgres

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "resume-from-checkpoint.ipynb"
CLASS = {
    "s01_full": "full_reference",
    "s02_repaired": "full_json_repaired",
    "s03_rerun": "wrong_incident_rerun",
    "s04_rerun_too": "wrong_incident_rerun",
    "s05_answers": "wrong_answers",
    "s06_blank": "blank",
    "s07_hangs": "tamper_hang_at_definition",
}
UNREADABLE = "s08_unreadable"
STUDENTS = sorted([*CLASS, UNREADABLE])
# The quicker students, for the runs that are stopped or broken on purpose: a student's grade does not
# depend on who else is in the class, so their results must equal the same students' in the full run.
SMALL = ["s01_full", "s02_repaired", "s03_rerun", "s04_rerun_too", "s06_blank"]
WORKERS = "2"


def environment() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # nbgrader runs `alembic` by name
    return env


def run(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, *args], cwd=course, env=environment(), capture_output=True, text=True,
                            timeout=900)
    if check:
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def classgrade(course: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return run(course, "-m", "autograder.classgrade", "--workers", WORKERS, *args, **kwargs)


def submit(course: Path, student: str, text: str) -> None:
    folder = course / "submitted" / student / "lesson03"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / NOTEBOOK).write_text(text, encoding="utf-8")


def copy_course(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)
    return target


def scores(course: Path, db_url: str | None = None) -> dict:
    return class_scores(db_url or f"sqlite:///{course / 'gradebook.db'}", "lesson03")


def files_under(folder: Path) -> list:
    # Names only: the judge words a few messages differently on every run (it picks an unknown
    # high-impact tool at random) and its notes cell gets a fresh cell id, serial or not.
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def recorded(course: Path) -> set:
    return {p.stem for p in (course / STATE_DIR / "lesson03").glob("*.json")}


@pytest.fixture(scope="module")
def new_class(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("class") / "course"
    course.mkdir()
    shutil.copytree(ROOT / "source", course / "source")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for student, variant in CLASS.items():
        submit(course, student, build(variant))
    submit(course, UNREADABLE, '{"cells": [{"cell_type": "code", "source": ')
    return course


@pytest.fixture
def small_class(new_class, tmp_path) -> Path:
    course = copy_course(new_class, tmp_path / "course")
    for student in set(STUDENTS) - set(SMALL):
        shutil.rmtree(course / "submitted" / student)
    return course


def only(found: dict, students: list) -> dict:
    return {student: found[student] for student in students}


@pytest.fixture(scope="module")
def serial_run(new_class, tmp_path_factory):
    course = copy_course(new_class, tmp_path_factory.mktemp("serial") / "course")
    return course, run(course, "-m", "autograder.classgrade", "--workers", "1", check=False)  # exit status compared below


@pytest.fixture(scope="module")
def serial(serial_run) -> Path:
    return serial_run[0]


@pytest.fixture(scope="module")
def parallel(new_class, tmp_path_factory):
    course = copy_course(new_class, tmp_path_factory.mktemp("parallel") / "course")
    return course, classgrade(course, check=False)


def test_parallel_grading_matches_the_serial_grader(serial_run, serial, parallel):
    course, result = parallel
    assert result.returncode == serial_run[1].returncode
    expected = scores(serial)
    assert sorted(expected) == STUDENTS
    assert scores(course) == expected  # every student's every cell: auto, manual, needs_manual, score; comments
    # The unreadable file and the repaired one are graded, not dropped; the plausible mistake loses points.
    assert expected["s08_unreadable"]["score"] == 0
    assert expected["s02_repaired"]["score"] == expected["s01_full"]["score"] > expected["s03_rerun"]["score"]
    for step in ("autograded", "feedback"):
        assert files_under(course / step) == files_under(serial / step), step
    serial_csv, parallel_csv = ((c / "grades.csv").read_text().splitlines() for c in (serial, course))
    assert serial_csv[0] == parallel_csv[0] and sorted(serial_csv) == sorted(parallel_csv)
    assert not list((course / STATE_DIR).glob("run-*")), "scratch folders are removed"


def test_progress_bar_and_summary(parallel):
    course, result = parallel
    assert f"{len(STUDENTS)}/{len(STUDENTS)}" in result.stderr  # the progress bar: done/total, rate, time left
    assert "人/s" in result.stderr or "s/人" in result.stderr
    assert "<00:" in result.stderr or "<0" in result.stderr
    assert "自动评分完成" in result.stdout
    assert f"本次评分 {len(STUDENTS)} 人" in result.stdout
    for student in STUDENTS:
        assert student in result.stdout
    assert recorded(course) == set(STUDENTS)


def test_a_rerun_grades_only_new_submissions_and_keeps_manual_grades(parallel, tmp_path):
    course = copy_course(parallel[0], tmp_path / "course")
    graded_before = scores(course)

    again = classgrade(course, check=False)
    assert "本次评分 0 人" in again.stdout
    assert scores(course) == graded_before

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:  # a grader marks a written answer
        grade = gradebook.find_grade("why_cpA", "resume-from-checkpoint", "lesson03", "s03_rerun")
        grade.manual_score = 1.0
        gradebook.db.commit()
    submit(course, "s06_blank", build("full_reference"))  # the blank student submits again
    submit(course, "s03_rerun", build("wrong_incident_rerun") + "\n")  # same code, new file: regraded
    third = classgrade(course, check=False)
    assert "本次评分 2 人" in third.stdout
    after = scores(course)
    assert after["s06_blank"]["cells"] == graded_before["s01_full"]["cells"]
    assert after["s03_rerun"]["cells"]["why_cpA"]["manual_score"] == 1.0  # autograde never overwrites it
    assert after["s03_rerun"]["cells"]["test_reconcile"] == graded_before["s03_rerun"]["cells"]["test_reconcile"]
    for student in set(STUDENTS) - {"s06_blank", "s03_rerun"}:
        assert after[student] == graded_before[student]


def test_an_interrupt_inside_an_nbgrader_step_waits_for_the_step_to_end():
    interrupts = Interrupts()
    previous = signal.signal(signal.SIGINT, interrupts.handle)
    steps = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.deferred():
                try:  # as nbgrader.utils.capture_log runs its apps
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.05)
                    steps.append("finished")
                except:  # noqa: E722
                    steps.append("swallowed")
        assert steps == ["finished"]
        with pytest.raises(KeyboardInterrupt):  # elsewhere at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
    finally:
        signal.signal(signal.SIGINT, previous)


def descendants(pid: int) -> list:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


@pytest.mark.parametrize("how", ["ctrl_c", "sigkill"])
def test_an_interrupted_run_resumes_to_the_same_gradebook(small_class, parallel, how):
    course = small_class
    process = subprocess.Popen([sys.executable, "-m", "autograder.classgrade", "--workers", WORKERS],
                               cwd=course, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 300
    while len(recorded(course)) < 2:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    helpers = descendants(process.pid)
    if how == "ctrl_c":
        os.killpg(process.pid, signal.SIGINT)  # what the terminal sends to the foreground job
    else:
        process.kill()
    process.communicate(timeout=60)
    gone, alive = psutil.wait_procs(helpers, timeout=30)
    assert not alive, f"left running: {[p.info if hasattr(p, 'info') else p.pid for p in alive]}"
    done = recorded(course)
    assert 2 <= len(done) < len(SMALL), "the run was stopped part-way"

    resumed = classgrade(course, check=False)
    assert f"本次评分 {len(SMALL) - len(done)} 人" in resumed.stdout
    assert scores(course) == only(scores(parallel[0]), SMALL)
    for step in ("autograded", "feedback"):
        assert files_under(course / step) == [f for f in files_under(parallel[0] / step) if f.split("/")[0] in SMALL]
    assert not list((course / STATE_DIR).glob("run-*")), "the killed run's scratch folder is cleaned up"


def test_workers_that_die_cost_their_students_a_blank_grade_and_nothing_else(small_class, parallel):
    """As in the serial grader: a student being graded when the worker died is graded as blank, with a note."""
    course = small_class
    process = subprocess.Popen([sys.executable, "-m", "autograder.classgrade", "--workers", WORKERS],
                               cwd=course, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 300
    # nbgrader has begun on the first verdict, so both workers have taken their next student (waiting for the
    # first record instead let them judge the whole class first when nbgrader's steps ran slow)
    while not list((course / "autograded").glob("*/lesson03")):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    for worker in psutil.Process(process.pid).children():
        worker.kill()
    stdout, stderr = process.communicate(timeout=600)
    assert recorded(course) == set(SMALL), "no student is lost: " + stderr.decode(errors="replace")[-3000:]
    clean, graded = scores(parallel[0]), scores(course)
    records = {s: json.loads((course / STATE_DIR / "lesson03" / f"{s}.json").read_text()) for s in SMALL}
    victims = [s for s, r in records.items() if grade.WORKER_DIED in r["report"]["notes"]]
    assert 1 <= len(victims) <= int(WORKERS), stdout
    for victim in victims:
        feedback = course / "feedback" / victim / "lesson03" / "resume-from-checkpoint.html"
        assert grade.WORKER_DIED in feedback.read_text(encoding="utf-8")
        assert graded[victim]["cells"] == clean["s06_blank"]["cells"]
    assert {s: graded[s] for s in SMALL if s not in victims} == {s: clean[s] for s in SMALL if s not in victims}


# Deaths placed exactly, inside the grading process: the only worker is killed while idle, just before
# its second student is handed to the pool (the case that once crashed the run with BrokenPipeError and
# lost the student another worker was grading), and its replacement kills itself as soon as it starts.
PLACED_DEATHS = """
import os, signal, sys, time
import psutil
from autograder import classgrade, judge_pool

starts = os.environ["PLACED_STARTS"]  # a file that grows by one byte each time a worker starts
start, hand_over = judge_pool.start_worker, judge_pool.JudgePool._hand_over
handed = []

def start_and_maybe_die(*args):  # pebble's initializer, with the pool's initargs (the lesson)
    with open(starts, "a") as file:
        file.write("x")
    if os.path.getsize(starts) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    start(*args)

def hand_over_after_a_death(pool):
    if pool.waiting and len(pool.running) < pool.workers:
        handed.append(pool.waiting[0][0])
        if len(handed) == 2:
            for worker in psutil.Process().children():
                worker.kill()
                try:
                    while worker.status() != psutil.STATUS_ZOMBIE:  # left for the pool to reap and notice
                        time.sleep(0.01)
                except psutil.NoSuchProcess:  # the pool has reaped it already
                    pass
    hand_over(pool)

judge_pool.start_worker, judge_pool.JudgePool._hand_over = start_and_maybe_die, hand_over_after_a_death
status = classgrade.main(["--workers", "1"])
print("PLACED", os.path.getsize(starts), *handed, file=sys.stderr)
sys.exit(status)
"""


def test_a_worker_that_dies_idle_or_at_start_costs_nobody_anything(new_class, parallel, tmp_path, monkeypatch):
    course = copy_course(new_class, tmp_path / "course")
    pair = ["s01_full", "s06_blank"]
    for student in set(STUDENTS) - set(pair):
        shutil.rmtree(course / "submitted" / student)
    monkeypatch.setenv("PLACED_STARTS", str(tmp_path / "starts"))
    result = run(course, "-c", PLACED_DEATHS, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    placed = result.stderr.split("PLACED ")[1].split()
    assert placed[0] == "3", "two workers were killed and replaced"
    assert placed[1:3] == pair and placed[-1] == pair[1]  # handed to the dead worker, then to a live one
    assert recorded(course) == set(pair)
    for student in pair:  # neither student was in a worker when it died: graded as usual, no note
        report = json.loads((course / STATE_DIR / "lesson03" / f"{student}.json").read_text())["report"]
        assert grade.WORKER_DIED not in report["notes"], report
    assert scores(course) == only(scores(parallel[0]), pair)


def test_postgres_gradebook_written_by_parallel_workers_matches_sqlite(small_class, serial):
    course = small_class
    with LocalPostgres() as server:
        url = server.create_database("gradebook")
        classgrade(course, "--db-url", url, check=False)  # the workers write into PostgreSQL at the same time
        assert not (course / "gradebook.db").exists()
        assert scores(course, url) == only(scores(serial), SMALL)
        assert (course / "grades.csv").read_text().splitlines()[1:] != []


def test_class_report(parallel):
    course, _ = parallel
    page = (course / "reports" / "lesson03.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page  # the histogram
    for grade_id in ("test_save_load", "test_run_agent", "test_reconcile", "test_incident_fix", "why_cpA"):
        assert f"<td>{grade_id}</td>" in page
    mistakes = page.split("<h2>最常见的错误</h2>")[1].split("<h2>")[0]
    first_row = mistakes.split("<tr>")[2]
    assert "s03_rerun" in first_row and "s04_rerun_too" in first_row  # the mistake two students made comes first
    problems = page.split("<h2>超时、崩溃或提交有问题的学生</h2>")[1]
    assert "<td>s07_hangs</td><td>代码超时或崩溃</td>" in problems
    assert "<td>s02_repaired</td><td>提交文件有问题</td>" in problems
    assert "<td>s08_unreadable</td><td>提交文件有问题</td>" in problems
    assert "s01_full" not in problems
    assert private_lines().any_in(page) == []  # no hidden test code, no reference solution


def test_each_lesson_grades_those_who_handed_it_in(tmp_path):
    submitted = tmp_path / "submitted"
    for student, lessons in {"a": ["lesson03", "lesson04"], "b": ["lesson03"], "c": ["lesson04"], "d": []}.items():
        for assignment in lessons:
            (submitted / student / assignment).mkdir(parents=True)
        (submitted / student).mkdir(parents=True, exist_ok=True)
    (submitted / "e").symlink_to(tmp_path)  # refused when staged, with a note: in every lesson
    three, four = lesson("lesson03"), lesson("lesson04")
    assert grade.students(tmp_path, three) == ["a", "b", "e"]
    assert grade.students(tmp_path, four) == ["a", "c", "e"]
    assert grade.lessons_handed_in(tmp_path) == [three, four]
    shutil.rmtree(submitted / "a" / "lesson04")
    shutil.rmtree(submitted / "c")
    assert grade.lessons_handed_in(tmp_path) == [three]  # a link alone is no lesson handed in


def test_one_lesson_alone_with_its_records_report_and_grades(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "source", course / "source")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    submit(course, "s01", build("blank"))
    four = lesson("lesson04")
    folder = course / "submitted" / "s02" / four.assignment
    folder.mkdir(parents=True)
    shutil.copy(four.release_notebook, folder)
    done = classgrade(course, "--lesson", "lesson04", "--no-progress")
    assert "lesson04 自动评分完成" in done.stdout and "lesson03 自动评分完成" not in done.stdout
    assert {p.stem for p in (course / STATE_DIR / "lesson04").glob("*.json")} == {"s02"}
    assert not (course / STATE_DIR / "lesson03").exists() and not (course / "feedback" / "s01").exists()
    assert sorted(p.name for p in (course / "reports").iterdir()) == ["lesson04.html"]
    with open(course / "grades.csv", encoding="utf-8") as grades:
        assert {(row["assignment"], row["student_id"]) for row in csv.DictReader(grades)} == {("lesson04", "s02")}
