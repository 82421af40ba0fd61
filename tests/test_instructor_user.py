"""`make grade` run by an ordinary instructor: a user this test creates (it must run as root), with a
venv built from Debian's /usr/bin/python3 in a world-readable place (pyenv's interpreter lives under
root's 0700 home), on a course folder in that user's 0700 home. One submission has no code of its own:
it finds source/ on disk and executes the reference solution. In the sandbox there is no source/ to
find, so it earns 0; the rest of the class is graded as usual.

The venv is cached under /tmp, keyed by a hash of requirements.txt: the first run builds it (a few
minutes), later runs reuse it; grading the three students then takes about half a minute.
"""
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.notebook_code import ROOT

sys.path.insert(0, str(ROOT / "tests" / "grading"))
from grading_corpus import build  # noqa: E402
from test_grading_corpus import EXPECTED, FULL  # noqa: E402

USER = "course-instructor-test"
SYSTEM_PYTHON = Path("/usr/bin/python3")
CLASS = {"alice": "full_reference", "bob": "wrong_incident_rerun", "mallory": "tamper_read_solution",
         # what the sandbox of an ordinary user's grader must see as a root grader's does: a detection of the
         # grader, a send around execute_tool, a thread acting after the return, a save completed afterwards
         "eve": "tamper_detect_by_code", "oscar": "tamper_smtp_quiet", "trent": "tamper_send_after_return",
         "victor": "tamper_act_after_step"}

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="creates a user: needs root (as in CI)"),
    pytest.mark.skipif(not SYSTEM_PYTHON.exists() or not shutil.which("useradd") or not shutil.which("runuser"),
                       reason="needs Debian's /usr/bin/python3, useradd and runuser"),
]


def instructor_venv() -> Path:
    """A venv any user can run, with the course's requirements; built once per requirements.txt."""
    digest = hashlib.sha256((ROOT / "requirements.txt").read_bytes()).hexdigest()[:16]
    venv = Path(f"/tmp/autograder-instructor-venv-{digest}")
    if not (venv / ".complete").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r",
                        str(ROOT / "requirements.txt")], check=True, timeout=1800)
        (venv / ".complete").touch()
    os.chmod(venv.parent / venv.name, 0o755)
    return venv


def instructor() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", USER], check=True)
        return pwd.getpwnam(USER)


def course_copy(home: Path) -> Path:
    """The repository's tracked files in the instructor's home, owned by the instructor."""
    course = home / "course"
    shutil.rmtree(course, ignore_errors=True)
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (course / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, course / name)
    for student, variant in CLASS.items():
        folder = course / "submitted" / student / "lesson03"
        folder.mkdir(parents=True)
        (folder / "resume-from-checkpoint.ipynb").write_text(build(variant), encoding="utf-8")
    return course


def test_an_ordinary_instructor_grades_and_the_solution_on_disk_is_out_of_reach():
    venv = instructor_venv()
    user = instructor()
    home = Path(user.pw_dir)
    course = course_copy(home)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(home)], check=True)
    os.chmod(home, 0o700)  # the usual home folder: nobody else may enter it
    env = {"HOME": str(home), "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8",
           "PYTHONPATH": str(course), "PYTHONDONTWRITEBYTECODE": "1"}
    graded = subprocess.run(["runuser", "-u", USER, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
                             str(venv / "bin" / "python"), "-m", "autograder.classgrade", "--workers", "2",
                             "--no-progress", str(course)],
                            cwd=course, capture_output=True, text=True, timeout=900)
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-3000:]
    reports = {student: json.loads((course / ".classgrade" / "lesson03" / f"{student}.json").read_text())["report"]
               for student in CLASS}
    assert reports["alice"]["grades"] == FULL
    assert reports["bob"]["grades"] == {**FULL, **EXPECTED["wrong_incident_rerun"]}
    assert reports["mallory"]["grades"] == {grade_id: 0 for grade_id in FULL}
    for student in ("eve", "oscar", "trent", "victor"):
        assert reports[student]["grades"] == {**FULL, **EXPECTED[CLASS[student]]}, student
    grades_csv = (course / "grades.csv").read_text(encoding="utf-8")
    assert all(student in grades_csv for student in CLASS)
    assert oct((course / "source").stat().st_mode & 0o777) == oct(0o755), "the instructor's permissions stay"
