"""Every Python a student is likely to have: the locks install and the course works on each.

For the interpreters on this machine (an interpreter that is not here is skipped, with its
path in the reason), uv builds:

- the student bundle's venv (its requirements.txt and the course runtime wheel) on pyenv's
  3.10, 3.12 and 3.13, and runs the released notebook in it offline, up to the first stub.
  Debian 12's python3 (3.11.2) gets the same in tests/test_student_bundle.py, set up with
  pip by the bundle's own `lab.py setup`, as a student does;
- the instructor's venv (requirements.txt) on the oldest and the newest, 3.10 and 3.13, and
  has the judge (`python -m autograder.judge`) grade one full-marks submission: every
  autograded cell gets all its points. On Debian's 3.11.2 the whole grading pipeline runs in
  tests/test_jupyterhub.py. (Every pair on every interpreter took about a minute more here.)

uv links from its cache, so a venv takes seconds once the cache holds the wheels.
"""
import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest

from grading.grading_corpus import build as build_variant
from student_env import (NOTEBOOK, ROOT, assert_stops_at_first_stub, build_bundle, clean_env,
                         run_notebook, unpack, uv_venv)

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
INTERPRETERS = {
    "3.10": PYENV / "3.10.13" / "bin" / "python",
    "3.12": PYENV / "3.12.1" / "bin" / "python",
    "3.13": PYENV / "3.13.0" / "bin" / "python",
}
STUDENT_PYTHONS = ["3.10", "3.12", "3.13"]
GRADING_PYTHONS = ["3.10", "3.13"]


def interpreter(version: str) -> Path:
    path = INTERPRETERS[version]
    if not path.exists():
        pytest.skip(f"这台机器上没有 {path}")
    return path


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    return unpack(build_bundle(tmp_path_factory.mktemp("bundle") / "student-bundle"),
                  tmp_path_factory.mktemp("unpacked"))


@pytest.mark.parametrize("version", STUDENT_PYTHONS)
def test_the_student_bundle_runs_up_to_the_first_stub(version, bundle, tmp_path):
    venv = tmp_path / "student"
    python = uv_venv(str(interpreter(version)), venv, [bundle / "requirements.txt"], list((bundle / "wheels").glob("*.whl")))
    report = run_notebook(python, bundle / NOTEBOOK)
    assert_stops_at_first_stub(report, venv)


@pytest.mark.parametrize("version", GRADING_PYTHONS)
def test_the_judge_gives_full_marks_to_the_reference(version, tmp_path):
    python = uv_venv(str(interpreter(version)), tmp_path / "instructor", [ROOT / "requirements.txt"], [])
    submission = tmp_path / Path(NOTEBOOK).name
    submission.write_text(build_variant("full_reference"), encoding="utf-8")
    done = subprocess.run([str(python), "-m", "autograder.judge", str(submission)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=clean_env(PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    verdict = json.loads(done.stdout)
    assert verdict["errors"] == [], verdict["errors"]
    source = nbformat.read(str(ROOT / "source" / NOTEBOOK), as_version=4)
    points = {cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"] for cell in source.cells
              if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")}
    scores = {grade_id: grade["score"] for grade_id, grade in verdict["grades"].items()}
    assert scores == points, [grade["checks"] for grade in verdict["grades"].values() if grade["score"] != grade["points"]]
