"""Level 2's scenarios: the incident replayed with the student's own run_agent and reconcile.

Unlike the run_agent scenarios, nothing is stood in: the submission saves, loads and
reconciles with its own code, the way the notebook's replay runs it. The grader kills
the child at the incident's moment (or inside a read-only call) and starts it again on
the same checkpoint.json.
"""
import json


def build(add, draw, email_task: str, meeting_task: str) -> None:
    """Add the incident scenarios through `add(scenario)` (called by scenarios.build, with its `draw`)."""
    from autograder.sandbox import Scenario

    from .scenarios import AGENT_QUICK_TIMEOUT, AGENT_TIMEOUT, CLIENT, before_sending, call, path

    def replay(name, task, checkpoint, crash):
        where = draw.file()
        files = {where: json.dumps(checkpoint, ensure_ascii=False)} if checkpoint else {}
        step = {**call("run_agent", task, client=CLIENT, path=path(where)), "timeout": AGENT_TIMEOUT,
                "quick_timeout": AGENT_QUICK_TIMEOUT}
        add(Scenario(name, steps=[step, step], files=files, watch=where, crash=crash,
                     meta={"task": task, "checkpoint": checkpoint, "file": where}))

    # SIGKILL right after send_email delivered, before save point B: the incident itself.
    replay("incident_replay", email_task, before_sending(draw.sample("cpC", email_task)), {"after_tool": "send_email"})
    # SIGKILL just before the second tool call (grep) runs: a read-only call left dangling.
    replay("incident_read_only_crash", meeting_task, None, {"before_tool_call": 2})
