"""Manual grading end to end, as an instructor does it: autograde a submission, grade one written
answer with a comment in the formgrader (driven in headless Chromium), regenerate the feedback
(what `make feedback` runs), and find the manual score and the comment on the student's page.

The course runs in a temporary copy (source/, nbgrader_config.py, one submission); JupyterLab
starts with nbgrader's formgrader enabled, which `make lab` turns off for students.
"""
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from conftest import ARTIFACTS, ROOT, quiet_lab_settings, stop_process_tree, wait_for_server
from course.mail import free_port

sys.path.insert(0, str(ROOT / "tests" / "grading"))
from grading_corpus import build  # noqa: E402  (the corpus's full-marks submission)

STUDENT = "alice"
NOTEBOOK = "resume-from-checkpoint"
ANSWER = "cpA 停在存档点 B 之后，没有悬空调用，直接继续。"
COMMENT = "动作对；还要说出为什么不需要对账：pendingToolUse 是 null。"
BIN = Path(sys.executable).parent


def nbgrader(course: Path, env: dict, *args: str) -> str:
    done = subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} 失败：\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course folder with lesson03 released and one autograded submission whose why_cpA is written."""
    folder = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "source", folder / "source")
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    env = {name: value for name, value in os.environ.items() if name != "ANTHROPIC_API_KEY"}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", COURSE_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])))
    nbgrader(folder, env, "generate_assignment", "lesson03", "--force")
    submission = nbformat.reads(build("full_reference"), as_version=4)
    written = next(c for c in submission.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "why_cpA")
    written.source = ANSWER
    target = folder / "submitted" / STUDENT / "lesson03" / f"{NOTEBOOK}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(submission, str(target))
    nbgrader(folder, env, "db", "student", "add", STUDENT)
    nbgrader(folder, env, "autograde", "lesson03", "--student", STUDENT)
    return {"dir": folder, "env": env}


@pytest.fixture(scope="module")
def instructor_lab(course, tmp_path_factory, artifacts):
    """The instructor's JupyterLab on the course folder, formgrader on; yields its URL and token."""
    home = tmp_path_factory.mktemp("instructor")
    quiet_lab_settings(home / "settings")
    port, token = free_port(), secrets.token_hex(16)
    env = {**course["env"], "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings")}
    args = [str(BIN / "jupyter"), "lab", "--no-browser", f"--port={port}", f"--IdentityProvider.token={token}",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={course['dir']}"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    log = artifacts / "formgrader-lab.log"
    with open(log, "w") as log_file:
        process = subprocess.Popen(args, cwd=course["dir"], env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_for_server(f"http://127.0.0.1:{port}/api/status?token={token}", process, log)
        yield {"url": f"http://127.0.0.1:{port}", "token": token}
    finally:
        leftovers = stop_process_tree(process)
    assert not leftovers, f"这些进程在 JupyterLab 收到 SIGTERM 后还活着：{leftovers}"


def submission_id(course_dir: Path) -> str:
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        return gradebook.find_submission_notebook(NOTEBOOK, "lesson03", STUDENT).id


def manual_grade(course_dir: Path, grade_id: str):
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade(grade_id, NOTEBOOK, "lesson03", STUDENT)
        comment = gradebook.find_comment(grade_id, NOTEBOOK, "lesson03", STUDENT)
        return grade.manual_score, comment.manual_comment


def test_a_written_answer_graded_in_the_formgrader_reaches_the_feedback(course, instructor_lab, page):
    url, token = instructor_lab["url"], instructor_lab["token"]
    page.goto(f"{url}/formgrader?token={token}")  # logs in: the formgrader's own API calls need the login cookie
    page.get_by_text("Manage Assignments").first.wait_for()
    page.goto(f"{url}/formgrader/submissions/{submission_id(course['dir'])}/")
    score = page.locator("input.score#why_cpA")
    score.wait_for()
    assert ANSWER in page.locator("body").inner_text()  # the student's answer is what the grader reads

    with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
        score.fill("0.5")
        score.press("Tab")
    assert saved.value.ok
    comment = page.locator("textarea#why_cpA-comment")
    with page.expect_response(lambda r: "/formgrader/api/comment/" in r.url and r.request.method == "PUT") as saved:
        comment.fill(COMMENT)
        comment.press("Tab")
    assert saved.value.ok
    page.screenshot(path=str(ARTIFACTS / "formgrader-manual-grade.png"), full_page=False)
    assert manual_grade(course["dir"], "why_cpA") == (0.5, COMMENT)

    refreshed = subprocess.run([sys.executable, "-m", "autograder.feedback"], cwd=course["dir"], env=course["env"],
                               capture_output=True, text=True)  # what `make feedback` runs
    assert refreshed.returncode == 0, refreshed.stdout[-2000:] + refreshed.stderr[-3000:]
    assert "都已批改完" in refreshed.stdout  # only why_cpA was written; a stub left as released scores 0 by itself
    feedback = course["dir"] / "feedback" / STUDENT / "lesson03" / f"{NOTEBOOK}.html"
    page.goto(feedback.as_uri())
    text = page.locator("body").inner_text()
    page.screenshot(path=str(ARTIFACTS / "feedback-after-manual-grading.png"), full_page=False)
    assert COMMENT in text and ANSWER in text
    cell = page.locator(".nbgrader_cell", has_text=ANSWER)
    assert re.search(r"0\.5\s*/\s*1(\.0)?\b", cell.inner_text()), cell.inner_text()
    with Gradebook(f"sqlite:///{course['dir'] / 'gradebook.db'}") as gradebook:
        total = gradebook.find_submission_notebook(NOTEBOOK, "lesson03", STUDENT).score
    assert total == 23.5  # the 23 auto-graded points of a full-marks submission, plus the manual 0.5
    assert re.search(r"23\.5\s*/\s*28", text), "the page's total should include the manual score"
