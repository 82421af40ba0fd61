"""Two `make grade` runs at once split the class instead of grading it twice (autograder.claims):
two on one course folder (one SQLite gradebook), and two "machines" (course folders of their own
with the same submissions) on one PostgreSQL gradebook, one of them killed halfway."""
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from autograder.scores import class_scores
from grading.grading_corpus import build
from postgres_harness import LocalPostgres
from test_class_grading import environment, submit

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = [f"s{number:02d}" for number in range(1, 7)]
GRADED_LINE = re.compile(r"^\s*\[\d+/\d+\] (\S+): ")


def course_with_class(folder: Path) -> Path:
    folder.mkdir(parents=True)
    shutil.copytree(ROOT / "source", folder / "source")
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    text = build("full_reference")
    for student in STUDENTS:
        submit(folder, student, text)
    return folder


def start(course: Path, *args: str) -> subprocess.Popen:
    env = dict(environment(), AUTOGRADER_CLAIM_LEASE="20")
    return subprocess.Popen([sys.executable, "-m", "autograder.classgrade", "--workers", "1", "--no-progress",
                             *args, str(course)], cwd=course, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def graded_by(output: str) -> list:
    return [m.group(1) for m in map(GRADED_LINE.match, output.splitlines()) if m]


def finish(process: subprocess.Popen) -> str:
    out, err = process.communicate(timeout=900)
    assert process.returncode == 0, out[-3000:] + err[-3000:]
    return out


def test_two_graders_on_one_course_folder_split_the_class(tmp_path):
    course = course_with_class(tmp_path / "course")
    first, second = start(course), start(course)
    graded = [graded_by(finish(first)), graded_by(finish(second))]
    assert sorted(graded[0] + graded[1]) == STUDENTS, graded  # everyone exactly once
    assert graded[0] and graded[1], f"both graded some: {graded}"
    assert sorted(class_scores(f"sqlite:///{course / 'gradebook.db'}", "lesson03")) == STUDENTS


def test_two_machines_on_one_postgres_gradebook_one_killed_halfway(tmp_path):
    machines = [course_with_class(tmp_path / name) for name in ("a", "b")]
    with LocalPostgres() as server:
        url = server.create_database("gradebook")
        victim = start(machines[0], "--db-url", url)
        survivor = start(machines[1], "--db-url", url)
        lines, deadline = [], time.monotonic() + 300
        while not graded_by("".join(lines)) and time.monotonic() < deadline:  # the victim's first student
            if select.select([victim.stdout], [], [], 1)[0]:
                lines.append(victim.stdout.readline())
        os.killpg(victim.pid, signal.SIGKILL)
        rest, _ = victim.communicate()
        by_victim = graded_by("".join(lines) + rest)
        by_survivor = graded_by(finish(survivor))
        assert by_victim, "the victim graded someone before it was killed"
        assert not set(by_victim) & set(by_survivor), (by_victim, by_survivor)  # nobody twice
        assert sorted(by_victim + by_survivor) == STUDENTS  # nobody lost: the dead grader's claims were taken over
        scores = class_scores(url, "lesson03")
        assert sorted(scores) == STUDENTS
        assert len({entry["score"] for entry in scores.values()}) == 1  # all full marks, as submitted
