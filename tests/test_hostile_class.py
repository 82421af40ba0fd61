"""A hostile class: three perfect copies graded beside links, a FIFO, a renamed grade_id, a fork bomb,
a memory hog, an output flood, an infinite loop and a disk filler, as root and as an ordinary instructor.

The run must complete; the perfect copies and the renamed-but-correct one keep full marks; nothing
outside the submissions is read or copied; no file the grader writes is readable by more users than
the submission it came from. As root the run is also killed with SIGKILL at a random moment and
resumed until done: grades.csv then lists every student exactly once, as the gradebook does.
"""
import csv
import json
import os
import random
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.notebook_code import ROOT, full_marks_notebook
from autograder.scores import class_scores

sys.path.insert(0, str(ROOT / "tests"))
from test_instructor_user import SYSTEM_PYTHON, USER, instructor, instructor_venv  # noqa: E402

NOTEBOOK = "resume-from-checkpoint.ipynb"
SECRET = "SECRET-OUTSIDE-THE-SUBMISSION-5f1c"
HOSTILE_RECONCILE = {
    "s_forkbomb": "import os\n\ndef reconcile(cp):\n    while True:\n        try:\n            os.fork()\n"
                  "        except OSError:\n            pass\n",
    "s_memory": "def reconcile(cp):\n    hog = []\n    while True:\n        hog.append(bytearray(64 * 1024 * 1024))\n",
    "s_flood": "def reconcile(cp):\n    while True:\n        print('x' * 65536)\n",
    "s_loop": "def reconcile(cp):\n    while True:\n        pass\n",
}
# Fills the session's disk from a folder it then shuts (mode 000): an ordinary user's grader must still remove it,
# or every notebook this worker grades after it runs out of space (graded first, so that others follow it).
DISK_FILLER = {
    "s00_shut_folder": "import os\n\ndef reconcile(cp):\n    os.makedirs('shut', exist_ok=True)\n"
                       "    for number in range(64):\n        try:\n"
                       "            fd = os.open(f'shut/{number}', os.O_WRONLY | os.O_CREAT, 0o600)\n"
                       "            os.posix_fallocate(fd, 0, 32 << 20)\n        except OSError:\n            break\n"
                       "    os.chmod('shut', 0)\n    return cp\n",
}
PERFECT = ["s01_full", "s02_full", "s03_full_private"]
LINKED = ["s_dangling", "s_outside", "s_zero", "s_fifo"]
FULL_MARKS = PERFECT + LINKED + ["s_renamed"]
STUDENTS = sorted(FULL_MARKS + list(HOSTILE_RECONCILE) + list(DISK_FILLER))


def notebook_text(reconcile: str | None = None, rename: bool = False) -> str:
    notebook = full_marks_notebook()
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "reconcile":
            if reconcile is not None:
                cell.source = reconcile
            if rename:
                cell.metadata["nbgrader"]["grade_id"] = "reconcile_v2"
    return nbformat.writes(notebook)


def build_class(course: Path, secret: Path) -> None:
    for student in STUDENTS:
        folder = course / "submitted" / student / "lesson03"
        folder.mkdir(parents=True)
        text = notebook_text({**HOSTILE_RECONCILE, **DISK_FILLER}.get(student), rename=student == "s_renamed")
        (folder / NOTEBOOK).write_text(text, encoding="utf-8")
    os.chmod(course / "submitted" / "s03_full_private" / "lesson03" / NOTEBOOK, 0o600)
    os.symlink("/nonexistent/notes.md", course / "submitted" / "s_dangling" / "lesson03" / "notes.md")
    os.symlink(secret, course / "submitted" / "s_outside" / "lesson03" / "answers.txt")
    os.symlink("/dev/zero", course / "submitted" / "s_zero" / "lesson03" / "data.bin")
    os.mkfifo(course / "submitted" / "s_fifo" / "lesson03" / "pipe")


def course_folder(parent: Path) -> Path:
    course = parent / "course"
    course.mkdir(parents=True)
    shutil.copytree(ROOT / "source", course / "source")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    return course


def secret_file(parent: Path) -> Path:
    secret = parent / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    os.chmod(secret, 0o600)  # as /etc/shadow: the instructor's (or root's) alone
    return secret


def start(command: list, course: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=course, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def root_command(course: Path) -> tuple[list, dict]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # progress must not need it
    env.update(PYTHONPATH=str(ROOT), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}")
    return [sys.executable, "-m", "autograder.classgrade", "--workers", "2", "--no-progress", str(course)], env


def wait_for_first_student(process: subprocess.Popen, timeout: float) -> str:
    """The first student's line, read while the run goes on (it is not held back until the end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            line = process.stdout.readline()
            if line.strip().startswith("["):
                return line
            if not line and process.poll() is not None:
                break
    raise AssertionError("no student's line appeared while the run was going on")


def check_class(course: Path, secret: Path, as_root: bool) -> None:
    reports = {p.stem: json.loads(p.read_text(encoding="utf-8"))["report"]
               for p in (course / ".classgrade" / "lesson03").glob("*.json")}
    assert sorted(reports) == STUDENTS
    full = reports["s01_full"]["auto_max"]
    assert full > 0
    for student in FULL_MARKS:
        assert reports[student]["auto_score"] == full, (student, reports[student])
    for student in HOSTILE_RECONCILE:
        assert reports[student]["grades"]["test_reconcile"] == 0, (student, reports[student]["grades"])
        assert reports[student]["errors"] == [], (student, reports[student]["errors"])
    # The instructor's table of trouble: what each did, and nothing for the perfect copies.
    trouble = {student: reports[student].get("trouble", {}) for student in STUDENTS}
    for student in PERFECT + ["s_renamed"]:
        assert not any(trouble[student].values()), (student, trouble[student])
    for student in LINKED:
        assert trouble[student].get("files") == 1, (student, trouble[student])
    assert trouble["s_memory"].get("memory") and trouble["s_loop"].get("time") and trouble["s_flood"].get("time")
    assert trouble["s_forkbomb"].get("time")
    if as_root:  # the pids cgroup counts refused forks; RLIMIT_NPROC's refusals reach only the student's code
        assert trouble["s_forkbomb"].get("processes")
    notes = {student: " ".join(reports[student]["notes"]) for student in LINKED}
    assert "符号链接" in notes["s_dangling"] and "符号链接" in notes["s_outside"] and "符号链接" in notes["s_zero"]
    assert "命名管道" in notes["s_fifo"]
    assert "reconcile_v2" in " ".join(reports["s_renamed"]["notes"])
    # Nothing outside the submissions was read or copied, and no link, device or FIFO was made.
    for folder in ("build", "autograded", "feedback", ".classgrade", "reports"):
        for path in (course / folder).rglob("*"):
            mode = path.lstat().st_mode
            assert stat.S_ISDIR(mode) or stat.S_ISREG(mode), path
            if stat.S_ISREG(mode):
                assert SECRET.encode() not in path.read_bytes(), path
    assert (course / "grades.csv").read_text(encoding="utf-8").count(SECRET) == 0
    # What the grader writes for a student is readable by no more users than the submission.
    for student in STUDENTS:
        source = course / "submitted" / student / "lesson03" / NOTEBOOK
        allowed = source.stat().st_mode & 0o044
        for folder in ("autograded", "feedback", "build/grading/submitted"):
            for path in (course / folder / student).rglob("*"):
                if path.is_file():
                    assert path.stat().st_mode & 0o044 & ~allowed == 0, (path, oct(path.stat().st_mode))
    # grades.csv and the gradebook agree: everyone once.
    with (course / "grades.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["assignment"] == "lesson03"]
    assert sorted(row["student_id"] for row in rows) == STUDENTS
    assert sorted(class_scores(f"sqlite:///{course / 'gradebook.db'}", "lesson03")) == STUDENTS


@pytest.mark.skipif(os.geteuid() != 0, reason="the root half; the ordinary instructor's half is below")
def test_a_hostile_class_graded_as_root_killed_and_resumed(tmp_path):
    course = course_folder(tmp_path)
    secret = secret_file(tmp_path)
    build_class(course, secret)
    command, env = root_command(course)
    process = start(command, course, env)
    try:
        wait_for_first_student(process, timeout=300)
        time.sleep(random.uniform(0, 4))
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    for _ in range(3):  # resume until done
        finished = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True, timeout=900)
        if finished.returncode in (0, 1) and "本次评分" in finished.stdout:
            break
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    assert "评分时遇到麻烦的学生" in finished.stdout
    check_class(course, secret, as_root=True)


@pytest.mark.skipif(os.geteuid() != 0 or not SYSTEM_PYTHON.exists() or not shutil.which("runuser"),
                    reason="creates an ordinary user: needs root (as in CI) and Debian's python3")
def test_a_hostile_class_graded_by_an_ordinary_instructor(tmp_path):
    venv = instructor_venv()
    user = instructor()
    home = Path(user.pw_dir) / "hostile"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    course = course_folder(home)
    for name in ("autograder", "course", "instruments"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    secret = secret_file(home)  # the root-owned secret the instructor cannot read either
    build_class(course, secret)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(course)], check=True)
    subprocess.run(["chown", f"{user.pw_uid}:{user.pw_gid}", str(home)], check=True)
    env = {"HOME": user.pw_dir, "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8",
           "PYTHONPATH": str(course), "PYTHONDONTWRITEBYTECODE": "1"}
    graded = subprocess.run(["runuser", "-u", USER, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
                             str(venv / "bin" / "python"), "-m", "autograder.classgrade", "--workers", "2",
                             "--no-progress", str(course)], cwd=course, capture_output=True, text=True, timeout=900)
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-3000:]
    check_class(course, secret, as_root=False)
