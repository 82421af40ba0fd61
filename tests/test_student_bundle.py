"""The student bundle (make bundle): only what students get, and it works on its own.

Builds the bundle, reads every byte of it (the zip, the wheel inside it, every notebook's
JSON strings) for any line of the reference solution or of the hidden tests, then unpacks
the zip in an empty folder, sets it up with `python3 lab.py setup` from Debian's own
python3 (as a student does, with pip) and runs the released notebook offline up to the
first stub.
"""
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.leaks import HIDDEN_TESTS
from student_env import (DEBIAN_PYTHON, NOTEBOOK, ROOT, assert_stops_at_first_stub, build_bundle, clean_env,
                         run_notebook, unpack)

SOURCE_NOTEBOOKS = sorted((ROOT / "source").glob("*/*.ipynb"))
# Shorter lines (`return cp`, `import json`, `try:`) occur in anybody's code and in the course runtime.
MIN_PRIVATE_LENGTH = 16
BUNDLE_TOP = {"README.md", "lab.py", "requirements.txt", "wheels", "jupyter_config", "lesson03", "lesson04"}
# Packages of the grader and of the tests: a student never needs them.
NOT_FOR_STUDENTS = {"pytest", "playwright", "psycopg", "tqdm", "uv", "jupyterhub"}


def regions(source: str, begin: str, end: str) -> list:
    lines, inside = [], False
    for line in source.splitlines():
        if line.strip() == begin:
            inside = True
        elif line.strip() == end:
            inside = False
        elif inside:
            lines.append(line)
    return lines


def find_private_lines() -> dict:
    """line -> where it comes from: solution regions, written answers, hidden test cells, hidden test files."""
    private, public = {}, set()
    for path in SOURCE_NOTEBOOKS:
        for cell in nbformat.read(str(path), as_version=4).cells:
            grading = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "markdown" and grading.get("solution"):
                hidden = cell.source.splitlines()
            else:
                hidden = (regions(cell.source, "### BEGIN SOLUTION", "### END SOLUTION")
                          + regions(cell.source, "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"))
            private.update({line.strip(): f"{path.name} {grading.get('grade_id')}" for line in hidden})
            public.update(line.strip() for line in cell.source.splitlines() if line not in hidden)
    for path in sorted(HIDDEN_TESTS.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            private.update({line.strip(): str(path.relative_to(ROOT)) for line in path.read_text().splitlines()})
    # A line the released notebook shows outside every answer (a docstring, a given import) is not private,
    # nor is a line of the wheel's own packages.
    public.update(line.strip() for package in ("course", "instruments") for path in (ROOT / package).rglob("*.py")
                  for line in path.read_text().splitlines())
    return {line: origin for line, origin in private.items() if len(line) >= MIN_PRIVATE_LENGTH and line not in public}


def texts(name: str, data: bytes):
    """(name, text) for a file and, for archives, every member; notebooks also as their decoded strings."""
    if name.endswith((".zip", ".whl")):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.namelist():
                yield from texts(f"{name}!{member}", archive.read(member))
        return
    text = data.decode("utf-8", errors="replace")
    yield name, text
    try:
        document = json.loads(text)
    except ValueError:
        return
    yield f"{name} (JSON)", "\n".join(strings(document))


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def leaks(folder: Path, private_lines: dict) -> list:
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        for name, text in texts(str(path.relative_to(folder)), path.read_bytes()):
            found += [(name, private_lines[line], line)
                      for line in {line.strip() for line in text.splitlines()} & set(private_lines)]
    return found


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """The built bundle: a folder holding student-bundle/ and student-bundle.zip."""
    out = tmp_path_factory.mktemp("bundle") / "student-bundle"
    build_bundle(out)
    return out.parent


@pytest.fixture(scope="module")
def private_lines() -> dict:
    found = find_private_lines()
    assert len(found) > 50, f"只找到 {len(found)} 行参考答案和隐藏测试：检查 find_private_lines() 是否还认得它们"
    return found


def test_bundle_holds_only_what_students_get(bundle):
    folder = bundle / "student-bundle"
    assert {path.name for path in folder.iterdir()} == BUNDLE_TOP
    for lesson in ("lesson03", "lesson04"):
        assert sorted(path.name for path in (folder / lesson).iterdir()) == sorted(
            path.name for path in (ROOT / "release" / lesson).iterdir() if path.suffix in (".ipynb", ".svg")), lesson
    with zipfile.ZipFile(next((folder / "wheels").glob("*.whl"))) as wheel:
        members = wheel.namelist()
    packages = {name.split("/")[0] for name in members}
    assert packages == {"course", "instruments", "crash_course_runtime-0.1.0.dist-info"}, packages
    assert "instruments/teacher_demo.py" not in members  # it reads source/ through autograder/
    assert "instruments/mutants.py" not in members  # so does the mutation instrument, and it runs the grader
    with zipfile.ZipFile(bundle / "student-bundle.zip") as archive:
        parts = {part for name in archive.namelist() for part in Path(name).parts}
    assert not parts & {"source", "autograder", "tests", "hidden_tests", ".git"}, parts
    assert json.loads((folder / "jupyter_config" / "labconfig" / "page_config.json").read_text())["disabledExtensions"]


def test_no_solution_or_hidden_test_line_anywhere(bundle, private_lines):
    assert leaks(bundle, private_lines) == []


def test_the_leak_search_finds_a_planted_solution_line(bundle, private_lines, tmp_path):
    """The search above can fail: a copy with one reference line pasted into the notebook is caught."""
    copy = tmp_path / "student-bundle"
    shutil.copytree(bundle / "student-bundle", copy)
    notebook = nbformat.read(str(copy / NOTEBOOK), as_version=4)
    solution = next(line for line, origin in private_lines.items() if origin.endswith("save_load"))
    stub = next(cell for cell in notebook.cells if cell.cell_type == "code" and "# YOUR CODE HERE" in cell.source)
    stub.source = stub.source.replace("# YOUR CODE HERE", "# YOUR CODE HERE\n    " + solution, 1)
    nbformat.write(notebook, str(copy / NOTEBOOK))
    assert [line for _, _, line in leaks(copy, private_lines)] == [solution]


@pytest.fixture(scope="module")
def installed(bundle, tmp_path_factory) -> Path:
    """The zip unpacked in an empty folder and set up with `python3 lab.py setup` (Debian's python3, pip)."""
    if not Path(DEBIAN_PYTHON).exists():
        pytest.skip(f"没有 {DEBIAN_PYTHON}（Debian 的系统 Python）")
    folder = unpack(bundle / "student-bundle.zip", tmp_path_factory.mktemp("student"))
    subprocess.run([DEBIAN_PYTHON, "lab.py", "setup"], cwd=folder, env=clean_env(), check=True,
                   capture_output=True, timeout=600)
    return folder


def test_setup_installs_the_students_packages_only(installed):
    listing = subprocess.run([str(installed / ".venv/bin/python"), "-m", "pip", "list", "--format=json"],
                             capture_output=True, text=True, check=True, env=clean_env()).stdout
    names = {package["name"].lower() for package in json.loads(listing)}
    assert {"jupyterlab", "nbgrader", "ipywidgets", "anthropic", "crash-course-runtime"} <= names
    assert not names & NOT_FOR_STUDENTS, names & NOT_FOR_STUDENTS


def test_the_notebook_runs_offline_up_to_the_first_stub(installed):
    report = run_notebook(installed / ".venv/bin/python", installed / NOTEBOOK)
    assert report["python"].startswith(str(installed / ".venv")), report["python"]
    assert_stops_at_first_stub(report, installed / ".venv")


def pins(lock: Path) -> set:
    """The lock's name==version pins (each may hold for some Pythons or platforms only)."""
    return {line.split("#")[0].split(";")[0].strip() for line in lock.read_text().splitlines()
            if line.split("#")[0].strip() and not line.startswith("-")}


def test_the_students_lock_pins_what_the_instructors_does():
    """A student and the grader run the same versions: the student's lock is a part of requirements.txt."""
    student, instructor = pins(ROOT / "requirements" / "student.txt"), pins(ROOT / "requirements.txt")
    assert len(student) > 50
    assert student <= instructor, sorted(student - instructor)
    assert not {pin.split("==")[0] for pin in student} & NOT_FOR_STUDENTS
