"""Fixtures for the browser test: the course's JupyterLab, started as `make lab` starts it,
and a headless Debian Chromium driven by Playwright.

The student's lab gets no settings of the test's own: what the screenshots show is what the
bundle's configuration gives a student (Chinese interface, no news pop-up).

JupyterLab serves a temporary copy of the lesson's release/ folder (`make lab LAB_DIR=...`; lesson03,
or the test module's LESSON), so the test never touches the committed notebook. Its settings, workspaces and runtime files go to
temporary folders too, so nothing in ~ changes what the test sees.
"""
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import sync_playwright

from course.mail import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
STOP_GRACE = 60  # seconds JupyterLab and its kernels get to exit after SIGTERM
# Root (as in CI) needs --no-sandbox. The network is closed: without the next four flags
# Chromium keeps trying to reach Google's hosts and logs refused connections.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def quiet_lab_settings(settings_dir: Path) -> None:
    """Answer JupyterLab's "get official Jupyter news?" toast once, for the instructor's lab.

    Left unanswered it covers the lower right of every screenshot. The student's lab needs no
    answer: the bundle's settings overrides turn the news off (student_bundle/jupyter_config).
    """
    notification = settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps({"fetchNews": "false"}))


def wait_for_server(url: str, lab: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        assert lab.poll() is None, f"make lab 提前退出了：\n{log.read_text()[-3000:]}"
        time.sleep(0.5)
    raise AssertionError(f"JupyterLab 在 {timeout} 秒内没有启动：\n{log.read_text()[-3000:]}")


def stop_process_tree(lab: subprocess.Popen) -> list[str]:
    """Stop `make lab`, JupyterLab and every kernel it started; describe what was still alive after.

    Kernels run in sessions of their own, so signalling the process group does not reach
    them: JupyterLab shuts them down itself on SIGTERM, and anything left is killed. The wait
    is long because a kernel's shutdown (5 s of grace, then SIGTERM) can take 20 s on a busy
    CI machine; what matters is that nothing outlives it.
    """
    tree = [psutil.Process(lab.pid)] + psutil.Process(lab.pid).children(recursive=True)
    names = {}
    for process in tree:
        try:
            names[process.pid] = " ".join(process.cmdline())[:200]
        except psutil.Error:
            names[process.pid] = "?"
    os.killpg(lab.pid, signal.SIGTERM)
    _, alive = psutil.wait_procs(tree, timeout=STOP_GRACE)
    for process in alive:
        process.kill()
    psutil.wait_procs(alive, timeout=5)
    lab.wait(timeout=5)
    return [f"pid {process.pid}: {names[process.pid]}" for process in alive]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory, artifacts):
    """The course's JupyterLab on a temporary copy of release/<lesson> (the test module's LESSON, else lesson03);
    yields its base URL, token and folder."""
    assignment = getattr(request.module, "LESSON", "lesson03")
    home = tmp_path_factory.mktemp("lab")
    lesson = home / assignment
    shutil.copytree(ROOT / "release" / assignment, lesson,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "checkpoint.json*"))
    port, token = free_port(), secrets.token_hex(16)
    env = {name: value for name, value in os.environ.items() if name != "ANTHROPIC_API_KEY"}  # offline, as students start
    env.update(JUPYTER_RUNTIME_DIR=str(home / "runtime"), JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"))
    log = artifacts / f"jupyterlab-{assignment}.log"
    lab_args = f"--no-browser --port={port} --IdentityProvider.token={token}"
    with open(log, "w") as log_file:
        process = subprocess.Popen(["make", "-s", "lab", f"LAB_DIR={lesson}", f"LAB_ARGS={lab_args}"],
                                   cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_for_server(f"http://127.0.0.1:{port}/api/status?token={token}", process, log)
        yield {"url": f"http://127.0.0.1:{port}", "token": token, "dir": lesson}
    finally:
        leftovers = stop_process_tree(process)
    assert not leftovers, f"这些进程在 JupyterLab 收到 SIGTERM {STOP_GRACE} 秒后还活着，只好强行结束：{leftovers}"


@pytest.fixture(scope="module")
def browser():
    assert Path(CHROMIUM).exists(), "没有 /usr/bin/chromium：运行 `make system-deps`（Debian 的 chromium 软件包）"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    context.set_default_timeout(30_000)
    yield context.new_page()
    context.close()
