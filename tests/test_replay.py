"""The replay harness: a real SIGKILL at the right moment, counted at the SMTP server, nothing left behind."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from instruments.replay import Agent, describe_event, is_incident_point, replay_incident, run_agent_process
from lesson_kernel import run_after_the_definitions

ROOT = Path(__file__).resolve().parent.parent


def leftovers():
    """Child processes and listening sockets of this process (the harness must leave none). Only its session's:
    a grading corpus judged in the background meanwhile (tests/grading/conftest.py) runs in a session of its own."""
    me, session = psutil.Process(), os.getsid(0)
    listening = [c.laddr for c in me.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    return [child for child in me.children(recursive=True) if _session(child.pid) == session], listening


def _session(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except ProcessLookupError:
        return None


@pytest.fixture(scope="module")
def incident(reference):
    return replay_incident(reference.run_agent, reference.incident_reconcile)


@pytest.fixture(scope="module")
def fixed(reference):
    return replay_incident(reference.run_agent, reference.reconcile)


def test_the_agent_is_killed_by_sigkill_after_delivery_before_save_point_b(incident):
    killed = incident.killed
    assert killed.signal == 9 and killed.exit_code is None
    assert killed.pid != os.getpid() and not psutil.pid_exists(killed.pid)
    assert is_incident_point(killed.crash_event)
    assert killed.events[-2] == {"kind": "tool", "when": "before", "name": "send_email"}
    # On disk: save point A (send_email pending), not B; at the server: already delivered.
    state = incident.at_crash.state
    assert state["pendingToolUse"]["name"] == "send_email"
    assert state["messages"][-1]["role"] == "assistant"
    assert incident.emails_at_crash == 1


def test_incident_reconcile_delivers_twice(incident):
    assert incident.resumed.pid not in (os.getpid(), incident.killed.pid)
    assert incident.resumed.exit_code == 0 and incident.resumed.error is None
    assert incident.emails_delivered == 2
    assert len({(to, subject) for _, to, subject in incident.emails}) == 1  # identical emails
    assert incident.dangling_result["is_error"] is False
    assert incident.invariants["no_duplicate_effect"] is False
    assert incident.invariants["task_finished"] is True


def test_fixed_reconcile_delivers_once_and_the_model_checks(fixed):
    assert fixed.emails_delivered == 1 and fixed.emails_at_crash == 1
    assert fixed.dangling_result["is_error"] is True
    tools_after_resume = [b["name"] for m in fixed.resume_messages for b in m["content"]
                          if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert tools_after_resume == ["list_sent_emails"]
    assert "不再重发" in fixed.final_text
    assert fixed.holds


def test_report_and_json(incident, fixed):
    assert "收到 2 封" in incident.report() and "收到 1 封" in fixed.report()
    assert "SIGKILL" in incident.report() and "--resume" in incident.report()
    assert "incident-broken" in incident._repr_html_() and "incident-ok" in fixed._repr_html_()
    data = json.loads(json.dumps(fixed.to_dict()))
    assert data["emails_delivered"] == 1 and data["dangling_result"]["is_error"] is True
    assert data["killed"]["signal"] == 9


def test_no_processes_or_ports_left(reference):
    before, smtp_port = leftovers(), os.environ.get("COURSE_SMTP_PORT")
    result = replay_incident(reference.run_agent, reference.reconcile)
    assert leftovers() == before
    assert not psutil.pid_exists(result.killed.pid) and not psutil.pid_exists(result.resumed.pid)
    assert os.environ.get("COURSE_SMTP_PORT") == smtp_port


def test_a_hanging_agent_is_killed_after_the_timeout(tmp_path):
    def run_agent(task, client=None, path=None):
        while True:
            time.sleep(0.05)

    before, started = leftovers(), time.monotonic()
    run = run_agent_process(Agent(run_agent, lambda cp: cp), tmp_path / "checkpoint.json", timeout=1)
    assert run.timed_out and run.signal == 9
    assert time.monotonic() - started < 5
    assert leftovers() == before and not psutil.pid_exists(run.pid)


def test_an_agent_that_raises_is_reported(tmp_path):
    def run_agent(task, client=None, path=None):
        raise SystemExit("学生代码退出了")

    run = run_agent_process(Agent(run_agent, lambda cp: cp), tmp_path / "checkpoint.json")
    assert run.exit_code == 1 and "学生代码退出了" in run.error


def test_crash_points_are_described_in_chinese():
    assert describe_event({"kind": "tool", "when": "after", "name": "send_email"}) == "send_email 执行完、结果还没存"
    assert "改名之前" in describe_event({"kind": "save", "when": "before_rename"})
    assert "临时文件写到一半" in describe_event({"kind": "save", "when": "write", "file": "temp"})


def test_make_replay_prints_two_then_one():
    done = subprocess.run([sys.executable, "-m", "instruments.teacher_demo"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["incident_reconcile"]["emails_delivered"] == 2
    assert summary["fixed_reconcile"]["emails_delivered"] == 1
    assert summary["fixed_reconcile"]["dangling_result"]["is_error"] is True
    assert "事故" in done.stdout


def test_replay_from_a_real_kernel(tmp_path):
    """fork() inside ipykernel: the functions live in the kernel's __main__, as in the lesson."""
    printed, shown = run_after_the_definitions([
        "import json, psutil\n"
        "from instruments.replay import replay_incident\n"
        "runs = [replay_incident(run_agent, incident_reconcile), replay_incident(run_agent, reconcile)]\n"
        "print(json.dumps({'emails': [r.emails_delivered for r in runs],\n"
        "                  'is_error': runs[1].dangling_result['is_error'],\n"
        "                  'children': len(psutil.Process().children(recursive=True))}))",
        "runs[1]"], tmp_path, timeout=60)
    assert json.loads(printed.outputs[0]["text"]) == {"emails": [2, 1], "is_error": True, "children": 0}
    assert "incident-ok" in shown.outputs[0]["data"]["text/html"]
    assert not list(tmp_path.iterdir())  # the harness works in its own temporary folder


def test_a_garbled_checkpoint_is_reported_not_a_crash_of_the_harness(reference, tmp_path):
    def save_garbage(state, path):
        Path(path).write_text('{"version": 1, "messages": "oops", "pendingToolUse": "x"}', encoding="utf-8")

    result = replay_incident(reference.run_agent, reference.reconcile, save_checkpoint=save_garbage, timeout=5)
    assert result.killed.stopped_at is not None and result.at_crash.problem == "messages 不是一列消息"
    assert result.invariants["checkpoint_loads"] is False and result.invariants["task_finished"] is False
    assert "读不回来" in result.report() and result.to_dict()["dangling_result"] is None
