"""The multi-machine path, end to end on one machine: JupyterHub, an nbgrader exchange, three users.

A real JupyterHub (requirements/hub.txt) with configurable-http-proxy from the npm registry,
DummyAuthenticator and the LocalProcessSpawner. The test makes three system users: an
instructor and two students, each with a private home (0700). The students' servers run
from a venv built from Debian's python3 with the student bundle's wheel and its page_config,
as a course image would; the instructor's commands run from a venv of the full lock, as the
instructor's own (non-root) user, in a course folder only they can read.

Instructor: generate_assignment, release_assignment, for both lessons. Each student, through their
own Hub server at the endpoints the Assignment List calls: fetch, save the notebook (contents API),
submit. Instructor: collect, `python -m autograder.classgrade` (what `make grade` runs),
release_feedback. Students: fetch_feedback. In lesson 3 alice hands in the reference solution, bob
only the save_load answer, so their scores differ by a known amount; in lesson 4 only alice hands in
(the reference solution), and bob gets lesson 4's zero without its feedback.

Needs root (useradd, the spawner's setuid); skips elsewhere and says why.
"""
import contextlib
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import psutil
import pytest

from autograder.lessons import lesson
from autograder.notebook_code import full_marks_notebook, reference_solutions
from course.mail import free_port
from grading.grading_corpus import build as build_variant
from student_bundle.lab import server_environment, student_server_args
from student_env import DEBIAN_PYTHON, ROOT, build_bundle, clean_env, unpack, uv_venv

TEACHER, STUDENTS = "cc-teacher", ("cc-alice", "cc-bob")
ASSIGNMENT = "lesson03"
NOTEBOOK = "resume-from-checkpoint.ipynb"
LESSON4 = lesson("lesson04")
NOTEBOOK4 = f"{LESSON4.notebook}.ipynb"
COURSE_ID = re.search(r'course_id = "([^"]+)"', (ROOT / "nbgrader_config.py").read_text()).group(1)
# What the instructor's course folder holds (a clone of this repository would do as well).
COURSE_FILES = ("nbgrader_config.py", "source", "release", "autograder", "course", "instruments")
INSTRUCTOR_PLUGINS = set(json.loads((ROOT / "student_bundle" / "jupyter_config" / "labconfig"
                                     / "page_config.json").read_text())["disabledExtensions"])
PROXY_VERSION = "5.3.0"
PROXY_CACHE = Path.home() / ".cache" / "crash-course" / f"configurable-http-proxy-{PROXY_VERSION}"
STUDENT_NBGRADER_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = {course!r}
c.Exchange.root = {exchange!r}
c.ExchangeFactory.submit = "course.exchange.PrivateSubmit"
"""


def why_not() -> str:
    if os.geteuid() != 0:
        return "需要 root：测试要用 useradd 建系统用户，JupyterHub 要以这些用户的身份启动服务器"
    for tool in ("useradd", "userdel", "npm", "node"):
        if shutil.which(tool) is None:
            return f"没有 {tool}"
    if not Path(DEBIAN_PYTHON).exists():
        return f"没有 {DEBIAN_PYTHON}：学生和老师的 venv 要用别的用户也能运行的 Python"
    return ""


pytestmark = pytest.mark.skipif(bool(why_not()), reason=why_not() or "-")


# --- users, proxy, the Hub ----------------------------------------------------------------

def remove_user(name: str) -> None:
    try:
        uid = pwd.getpwnam(name).pw_uid
    except KeyError:
        return
    for process in psutil.process_iter(["uids"]):
        if process.info["uids"] and process.info["uids"].real == uid:
            process.kill()
    subprocess.run(["userdel", "--remove", name], capture_output=True)


def add_user(name: str) -> pwd.struct_passwd:
    remove_user(name)  # left over from an interrupted run
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "-K", "HOME_MODE=0700", name], check=True)
    return pwd.getpwnam(name)


def proxy_command() -> Path:
    command = PROXY_CACHE / "node_modules" / ".bin" / "configurable-http-proxy"
    if not command.exists():
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(PROXY_CACHE),
                        f"configurable-http-proxy@{PROXY_VERSION}"], check=True, capture_output=True, timeout=300)
    return command


class Hub:
    def __init__(self, url: str, token: str):
        self.url, self.token = url, token

    def request(self, method: str, path: str, token: str = None, data=None, form: dict = None):
        """(status, parsed JSON or text) of a request to the Hub's public URL."""
        headers = {"Authorization": f"token {token or self.token}"}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as reply:
                status, text = reply.status, reply.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode(errors="replace")
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def start_server(self, user: str) -> str:
        """Spawn the user's server, wait until it answers; return a token of that user's own."""
        status, reply = self.request("POST", f"/hub/api/users/{user}/server")
        assert status in (201, 202), (status, reply)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            status, model = self.request("GET", f"/hub/api/users/{user}")
            if model.get("servers", {}).get("", {}).get("ready"):
                break
            time.sleep(0.3)
        else:
            raise AssertionError(f"{user} 的服务器 90 秒内没有起来：{model}")
        status, token = self.request("POST", f"/hub/api/users/{user}/tokens", data={"note": "test"})
        assert status == 201, token
        return token["token"]


def start_hub(folder: Path, student_python: Path, jupyter_config: Path, log) -> tuple:
    port, token = free_port(), secrets.token_hex(32)
    config = folder / "jupyterhub_config.py"
    environments = {name: server_environment(jupyter_config, Path(pwd.getpwnam(name).pw_dir), hub=True)
                    for name in STUDENTS}
    config.write_text(f"""\
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{free_port()}"
c.JupyterHub.db_url = "sqlite:///{folder}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.ConfigurableHTTPProxy.command = ["{proxy_command()}"]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {set(STUDENTS)!r}
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = ["{student_python.parent / 'jupyterhub-singleuser'}"]
c.Spawner.args = {student_server_args()!r}
# What a course image would set: lab.py's configuration folder, each student's settings in their own home.
ENVIRONMENTS = {environments!r}
c.Spawner.environment = {{name: (lambda spawner, name=name: ENVIRONMENTS[spawner.user.name][name])
                         for name in ENVIRONMENTS[{STUDENTS[0]!r}]}}
c.Spawner.notebook_dir = "~"
c.Spawner.default_url = "/lab"
c.Spawner.http_timeout = 90
c.JupyterHub.services = [{{"name": "course-test", "api_token": "{token}"}}]
c.JupyterHub.load_roles = [{{"name": "course-test", "services": ["course-test"],
                            "scopes": ["admin:users", "admin:servers", "tokens", "list:users"]}}]
""")
    process = subprocess.Popen([str(student_python.parent / "jupyterhub"), "-f", str(config)], cwd=folder,
                               env=clean_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{port}", token)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "JupyterHub 提前退出了（日志在 test-artifacts/jupyterhub/hub.log）"
        try:
            if hub.request("GET", "/hub/api/")[0] == 200:
                return process, hub
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError("JupyterHub 60 秒内没有起来")


def stop(process: subprocess.Popen) -> list:
    """SIGTERM the Hub (it stops the users' servers and the proxy), kill what is left; return what was."""
    tree = psutil.Process(process.pid).children(recursive=True)
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)
    _, alive = psutil.wait_procs([p for p in tree if p.is_running()], timeout=10)
    names = []
    for leftover in alive:
        with contextlib.suppress(psutil.Error):
            names.append(" ".join(leftover.cmdline()))
            leftover.kill()
    return names


# --- running things as a user -----------------------------------------------------------

def as_user(user: pwd.struct_passwd, command: list, cwd: Path, venv: Path, check=True, timeout=600):
    env = clean_env(HOME=user.pw_dir, USER=user.pw_name, LOGNAME=user.pw_name,
                    PATH=f"{venv / 'bin'}:/usr/bin:/bin")
    done = subprocess.run(command, cwd=cwd, env=env, user=user.pw_uid, group=user.pw_gid, extra_groups=[],
                          capture_output=True, text=True, timeout=timeout)
    assert not check or done.returncode == 0, f"{user.pw_name}: {' '.join(map(str, command))}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


def can_read(user: pwd.struct_passwd, path: Path) -> bool:
    probe = ("import os, sys\np = sys.argv[1]\n"
             "try:\n    os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read(1)\nexcept OSError:\n    sys.exit(1)\n")
    done = subprocess.run([DEBIAN_PYTHON, "-c", probe, str(path)], user=user.pw_uid, group=user.pw_gid,
                          extra_groups=[], capture_output=True, env=clean_env(HOME=user.pw_dir))
    return done.returncode == 0


def answered_notebook(student: str) -> str:
    """alice: the reference solution everywhere; bob: the released notebook with only save_load answered."""
    if student == STUDENTS[0]:
        return build_variant("full_reference")
    notebook = nbformat.read(str(ROOT / "release" / ASSIGNMENT / NOTEBOOK), as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "save_load")
    cell.source = reference_solutions()["save_load"]
    return nbformat.writes(notebook)


def autograded_points() -> dict:
    notebook = nbformat.read(str(ROOT / "source" / ASSIGNMENT / NOTEBOOK), as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"] for c in notebook.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}


# --- the whole cycle, once -----------------------------------------------------------------

@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    artifacts = ROOT / "test-artifacts" / "jupyterhub"
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    base = Path(tempfile.mkdtemp(prefix="course-hub-"))
    base.chmod(0o755)  # the venvs and the exchange must be reachable by every user
    teacher = add_user(TEACHER)
    students = {name: add_user(name) for name in STUDENTS}
    timings, process = {}, None
    try:
        started = time.monotonic()
        bundle = unpack(build_bundle(tmp_path_factory.mktemp("bundle") / "student-bundle"), base)
        student_python = uv_venv(DEBIAN_PYTHON, base / "student-venv", [ROOT / "requirements" / "hub.txt"],
                                 list((bundle / "wheels").glob("*.whl")))
        teacher_venv = base / "teacher-venv"
        uv_venv(DEBIAN_PYTHON, teacher_venv, [ROOT / "requirements.txt"], [])
        exchange = base / "exchange"
        exchange.mkdir(mode=0o777)
        exchange.chmod(0o777)  # nbgrader #1225: every user writes below the exchange root
        for venv in (base / "student-venv", teacher_venv):
            (venv / "etc" / "jupyter").mkdir(parents=True, exist_ok=True)
            (venv / "etc" / "jupyter" / "nbgrader_config.py").write_text(
                STUDENT_NBGRADER_CONFIG.format(course=COURSE_ID, exchange=str(exchange)))
        course = Path(teacher.pw_dir) / "course"
        course.mkdir()
        for name in COURSE_FILES:
            copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
            copy(ROOT / name, course / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                                if (ROOT / name).is_dir() else {}))
        subprocess.run(["chown", "-R", f"{TEACHER}:{TEACHER}", str(course)], check=True)
        course.chmod(0o700)
        timings["set-up"] = time.monotonic() - started

        started = time.monotonic()
        for assignment in (ASSIGNMENT, LESSON4.assignment):
            as_user(teacher, ["nbgrader", "generate_assignment", assignment, "--force"], course, teacher_venv)
            as_user(teacher, ["nbgrader", "release_assignment", assignment], course, teacher_venv)
        timings["release"] = time.monotonic() - started

        started = time.monotonic()
        log = open(artifacts / "hub.log", "w")
        process, hub = start_hub(base, student_python, bundle / "jupyter_config", log)
        tokens = {name: hub.start_server(name) for name in STUDENTS}
        timings["hub and servers"] = time.monotonic() - started

        started = time.monotonic()
        listed, formgrader, lab_pages, lab_settings = {}, {}, {}, {}
        args = {"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
        args4 = {"course_id": COURSE_ID, "assignment_id": LESSON4.assignment}
        for name, token in tokens.items():
            listed[name] = hub.request("GET", f"/user/{name}/assignments?course_id={COURSE_ID}", token)
            formgrader[name] = hub.request("GET", f"/user/{name}/formgrader", token)[0]
            lab_pages[name] = hub.request("GET", f"/user/{name}/lab", token)
            lab_settings[name] = {
                "locale": hub.request("GET", f"/user/{name}/lab/api/settings/@jupyterlab/translation-extension:plugin",
                                      token),
                "custom.css": hub.request("GET", f"/user/{name}/custom/custom.css", token)[0]}
            status, reply = hub.request("POST", f"/user/{name}/assignments/fetch", token, form=args)
            assert status == 200, (name, status, reply)
            path = f"/user/{name}/api/contents/{ASSIGNMENT}/{NOTEBOOK}"
            status, reply = hub.request("PUT", path, token, data={
                "type": "notebook", "format": "json", "content": json.loads(answered_notebook(name))})
            assert status in (200, 201), (name, status, reply)
            status, reply = hub.request("POST", f"/user/{name}/assignments/submit", token, form=args)
            assert status == 200 and not (isinstance(reply, dict) and reply.get("success") is False), reply
        alice = STUDENTS[0]  # lesson 4: fetched, saved, submitted by alice alone
        for step, body in (("fetch", None), ("save", nbformat.writes(full_marks_notebook(LESSON4))), ("submit", None)):
            if body is None:
                status, reply = hub.request("POST", f"/user/{alice}/assignments/{step}", tokens[alice], form=args4)
            else:
                status, reply = hub.request("PUT", f"/user/{alice}/api/contents/{LESSON4.assignment}/{NOTEBOOK4}",
                                            tokens[alice], data={"type": "notebook", "format": "json",
                                                                 "content": json.loads(body)})
            assert status in (200, 201) and not (isinstance(reply, dict) and reply.get("success") is False), \
                (step, status, reply)
        timings["fetch and submit"] = time.monotonic() - started
        inbound = exchange / COURSE_ID / "inbound"
        submissions = {name: next(p for p in inbound.iterdir() if p.name.startswith(f"{name}+{ASSIGNMENT}+"))
                       for name in STUDENTS}

        started = time.monotonic()
        for assignment in (ASSIGNMENT, LESSON4.assignment):
            as_user(teacher, ["nbgrader", "collect", assignment], course, teacher_venv)
        graded = as_user(teacher, ["python", "-m", "autograder.classgrade"], course, teacher_venv)
        (artifacts / "classgrade.log").write_text(graded.stdout + graded.stderr)
        for assignment in (ASSIGNMENT, LESSON4.assignment):
            as_user(teacher, ["nbgrader", "release_feedback", assignment], course, teacher_venv)
        timings["collect, grade, release_feedback"] = time.monotonic() - started

        started = time.monotonic()
        feedback = {}
        for name, token in tokens.items():
            for assignment, form in ((ASSIGNMENT, args), (LESSON4.assignment, args4)):
                status, reply = hub.request("POST", f"/user/{name}/assignments/fetch_feedback", token, form=form)
                assert status == 200, (name, status, reply)
                pages = sorted((Path(students[name].pw_dir) / assignment / "feedback").rglob("*.html"))
                feedback[name, assignment] = [
                    hub.request("GET", f"/user/{name}/api/contents/"
                                + urllib.parse.quote(str(page.relative_to(students[name].pw_dir))),
                                token)[1]["content"] for page in pages]
        timings["fetch_feedback"] = time.monotonic() - started
        (artifacts / "timings.json").write_text(json.dumps(timings, indent=1))
        yield {"teacher": teacher, "students": students, "course": course, "exchange": exchange,
               "submissions": submissions, "listed": listed, "formgrader": formgrader, "lab_pages": lab_pages,
               "lab_settings": lab_settings, "feedback": feedback,
               "grades": (course / "grades.csv").read_text(), "timings": timings}
    finally:
        if process is not None:
            (artifacts / "left-running.json").write_text(json.dumps(stop(process)))
        for name in (TEACHER, *STUDENTS):
            remove_user(name)
        shutil.rmtree(base, ignore_errors=True)


def grades(cycle) -> dict:
    """{(lesson, student): score} from grades.csv."""
    import csv
    import io
    return {(row["assignment"], row["student_id"]): float(row["score"])
            for row in csv.DictReader(io.StringIO(cycle["grades"]))}


def test_students_see_both_released_lessons_and_no_formgrader(cycle):
    for name, (status, assignments) in cycle["listed"].items():
        assert status == 200, assignments
        released = [a["assignment_id"] for a in assignments["value"] if a["status"] == "released"]
        assert sorted(released) == [ASSIGNMENT, LESSON4.assignment]
        assert cycle["formgrader"][name] == 404
        status, html = cycle["lab_pages"][name]
        config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                                      html, re.DOTALL).group(1))
        assert INSTRUCTOR_PLUGINS <= set(config["disabledExtensions"]), config["disabledExtensions"]
        assert "@jupyter/nbgrader:assignment-list" not in config["disabledExtensions"]  # the Hub has the exchange


def test_students_get_the_lab_in_chinese_with_validate_in_chinese(cycle):
    for name, found in cycle["lab_settings"].items():
        status, settings = found["locale"]
        # The bundle's default_setting_overrides.json changes the default the schema gives (no user setting needed).
        assert status == 200 and settings["schema"]["properties"]["locale"]["default"] == "zh_CN", (name, settings)
        assert found["custom.css"] == 200, name


def test_each_student_gets_the_expected_grade(cycle):
    points = autograded_points()
    found = grades(cycle)
    assert {key: score for key, score in found.items() if key[0] == ASSIGNMENT} == {
        (ASSIGNMENT, STUDENTS[0]): float(sum(points.values())), (ASSIGNMENT, STUDENTS[1]): float(points["test_save_load"])}
    assert sorted(key for key in found if key[0] == LESSON4.assignment) == [(LESSON4.assignment, s) for s in STUDENTS]
    assert found[LESSON4.assignment, STUDENTS[1]] == 0  # bob never handed lesson 4 in
    assert found[LESSON4.assignment, STUDENTS[0]] == 25  # every automatic point; no written answer


def test_each_student_receives_only_their_own_feedback(cycle):
    expected = grades(cycle)
    for (name, assignment), pages in cycle["feedback"].items():
        handed_in = assignment == ASSIGNMENT or name == STUDENTS[0]
        assert len(pages) == handed_in, f"{name} 拿到了 {len(pages)} 份 {assignment} 的反馈"
        for page in pages:
            score = re.search(r"（得分 ([\d.]+) / ([\d.]+)）", page)
            assert score and float(score.group(1)) == expected[assignment, name], (name, score and score.group(0))


def test_a_student_cannot_read_another_students_submission(cycle):
    alice, bob = (cycle["students"][name] for name in STUDENTS)
    theirs = cycle["submissions"][alice.pw_name]
    assert stat.S_IMODE(theirs.stat().st_mode) == 0o770  # stock nbgrader leaves it 0777 (#978)
    assert not can_read(bob, theirs)
    assert not can_read(bob, theirs / NOTEBOOK)
    assert not can_read(bob, theirs.parent), "学生能列出 inbound/，就能看到别人的提交文件夹名"
    assert not can_read(bob, Path(alice.pw_dir) / ASSIGNMENT / NOTEBOOK)
    assert can_read(cycle["teacher"], theirs / NOTEBOOK)  # the instructor still collects it (collect did)
    assert can_read(alice, theirs / NOTEBOOK)


def test_students_cannot_read_the_instructors_course(cycle):
    course = cycle["course"]
    for student in cycle["students"].values():
        for secret in (course / "source" / ASSIGNMENT / NOTEBOOK, course / "autograder" / "hidden_tests",
                       next((course / "autograder" / "hidden_tests").glob("test_*.py")), course / "gradebook.db"):
            assert not can_read(student, secret), f"{student.pw_name} 能读 {secret}"
