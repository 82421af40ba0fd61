"""`make lab` serves JupyterLab offline with no API key."""
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_make_lab_answers_200_without_a_key(tmp_path):
    port, token = free_port(), "course-test"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path)  # keep the server's runtime files out of ~
    args = f"--no-browser --port={port} --IdentityProvider.token={token}"
    lab = subprocess.Popen(["make", "-s", "lab", f"LAB_ARGS={args}"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline, status = time.monotonic() + 60, None
        while time.monotonic() < deadline and status is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=5) as reply:
                    status, page = reply.status, reply.read().decode()
            except OSError:
                assert lab.poll() is None, "make lab exited before serving"
                time.sleep(0.5)
        assert status == 200
        assert "JupyterLab" in page
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
