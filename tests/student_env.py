"""The student's side, built as a student (or the course's JupyterHub image) gets it.

Shared by the bundle, Python-version and JupyterHub tests: build the bundle with
`python -m student_bundle.build` (what `make bundle` runs), unpack its zip, make venvs of
any interpreter, and run the released notebook in one with tests/student_run.py.
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUDENT_RUN = Path(__file__).resolve().parent / "student_run.py"
DEBIAN_PYTHON = "/usr/bin/python3"
UV = Path(sys.executable).parent / "uv"
NOTEBOOK = "lesson03/resume-from-checkpoint.ipynb"


def clean_env(**extra) -> dict:
    """The environment of a student's shell: nothing of this repository on a path, no API key."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONPATH", "ANTHROPIC_API_KEY", "VIRTUAL_ENV", "JUPYTER_CONFIG_PATH")}
    env["PATH"] = os.pathsep.join(part for part in env.get("PATH", "").split(os.pathsep)
                                  if not part.startswith(str(ROOT)) and ".venv" not in part)
    env.update(extra)
    return env


def build_bundle(out: Path) -> Path:
    """Build the bundle into `out` as `make bundle` does; return the zip beside it."""
    subprocess.run([sys.executable, "-m", "student_bundle.build", "--out", str(out)], cwd=ROOT, check=True,
                   capture_output=True)
    return out.with_suffix(".zip")


def unpack(archive: Path, dest: Path) -> Path:
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(dest)
    return dest / "student-bundle"


def uv_venv(python: str, venv: Path, requirements: list, wheels: list) -> Path:
    """A venv of `python` with the given locks and wheels installed by uv (cached); return its interpreter."""
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([str(UV), "venv", "--quiet", "--seed", "--python", python, str(venv)], check=True,
                   env=clean_env())
    args = [arg for lock in requirements for arg in ("-r", str(lock))]
    subprocess.run([str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), *args,
                    *map(str, wheels)], check=True, env=clean_env())
    return venv / "bin" / "python"


def run_notebook(python: Path, notebook: Path, run_all: bool = False, timeout: float = 300) -> dict:
    """Run the notebook in a kernel of `python` (tests/student_run.py); return its JSON report."""
    command = [str(python), str(STUDENT_RUN), str(notebook)] + (["--all"] if run_all else [])
    done = subprocess.run(command, cwd=notebook.parent, env=clean_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{python} 跑不了 notebook：\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


def assert_stops_at_first_stub(report: dict, venv: Path) -> None:
    """The released notebook runs offline, the first error being a stub not written yet: its
    NotImplementedError, or the visible check (course.checks) saying so in Chinese."""
    assert Path(report["course_file"]).is_relative_to(venv), f"course 不是从学生的 venv 导入的：{report['course_file']}"
    first_stub = next((cell["index"] for cell in report["cells"] if cell["stub"]), None)
    error = report["first_error"]
    assert first_stub is not None, f"还没到第一个 `# YOUR CODE HERE` 就停了：{report['cells'][-1]}"
    assert error is not None, "第一个 `# YOUR CODE HERE` 之后没有一个单元格报错（练习还没写，检查却通过了）"
    unwritten = error["error"] == "NotImplementedError" or (
        error["error"] == "CheckFailed" and "NotImplementedError" in (error["message"] or ""))
    assert unwritten, f"第 {error['index']} 个单元格先出错了：{error}"
    assert error["index"] >= first_stub, error
