"""The situations the hidden tests put a submission in, as data for the sandbox.

Every grading run builds them afresh: tool-call ids, file names, the wrong version
number and the unheard-of tools are drawn at random, so a submission cannot
hard-code what the grader will ask.
"""
import json
import secrets
import string

from course import load_sample

from autograder.sandbox import Scenario

from . import incident_scenarios

MEETING_TASK = load_sample("cpA")["task"]
EMAIL_TASK = load_sample("cpC")["task"]

READ_ONLY_CALLS = {
    "read_file": {"path": "./notes/meeting-08-25.md"},
    "grep": {"pattern": "结论", "path": "./notes"},
    "list_dir": {"path": "./notes"},
    "web_search": {"query": "检查点 恢复"},
}
# High-impact tools the lesson never names: a deny-list of send_email alone lets them through.
UNHEARD_OF_TOOLS = {
    "transfer_funds": {"to_account": "CN-0042-7781", "amount": 1200},
    "drop_table": {"table": "customers"},
    "deploy_release": {"service": "billing", "version": "2.4.1"},
    "post_to_channel": {"channel": "#all-hands", "text": "本周结论"},
    "cancel_order": {"order_id": "A-1093"},
    "rotate_api_keys": {"scope": "production"},
    "charge_card": {"customer": "c_8812", "cents": 4999},
}
AGENT_TIMEOUT = 20.0  # seconds for one run_agent call (at most ten turns here, on a busy machine)
AGENT_QUICK_TIMEOUT = 8.0  # once run_agent has run out of time
FILE_SIZE_LIMIT = 64 * 1024  # bytes: the "disk" fills up half-way through the big save
STANDINS = ("save_checkpoint", "load_checkpoint", "reconcile")


def random_letters(length: int) -> str:
    return "".join(secrets.choice(string.ascii_lowercase) for _ in range(length))


def new_tool_id() -> str:
    alphabet = string.ascii_letters + string.digits
    return "toolu_01" + "".join(secrets.choice(alphabet) for _ in range(22))


def with_pending(sample: str, name: str, tool_input: dict) -> dict:
    """A lesson sample whose dangling call is `name(tool_input)` with a fresh id."""
    cp = load_sample(sample)
    tool_id = new_tool_id()
    block = next(b for b in cp["messages"][-1]["content"] if b["type"] == "tool_use")
    block.update(id=tool_id, name=name, input=dict(tool_input))
    cp["pendingToolUse"] = {"id": tool_id, "name": name, "input": dict(tool_input)}
    return cp


def after_save_point_b() -> dict:
    """cpB one step later: the read_file result is in messages, nothing is pending."""
    cp = load_sample("cpB")
    pending = cp["pendingToolUse"]
    cp["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": pending["id"], "content": "（读到的纪要全文）"}]})
    cp["pendingToolUse"] = None
    return cp


def before_sending() -> dict:
    """The email task at save point B just before the model asks for send_email (cpC one turn earlier)."""
    cp = load_sample("cpC")
    cp["messages"].pop()
    cp["turns"] -= 1
    cp["pendingToolUse"] = None
    return cp


def call(name: str, *args, **kwargs) -> dict:
    return {"kind": "call", "name": name, "args": list(args), "kwargs": kwargs}


def path(name: str) -> dict:
    return {"$path": name}


CLIENT = {"$client": True}


def build(max_turns: int) -> dict:
    """name -> Scenario for one grading run."""
    scenarios = {}

    def add(scenario: Scenario):
        scenarios[scenario.name] = scenario

    # -- save_checkpoint / load_checkpoint --
    state = load_sample("cpB")
    state["turns"] += secrets.randbelow(20)
    saved = f"cp-{random_letters(8)}.json"
    add(Scenario("save_roundtrip", independent_steps=True, watch=saved, meta={"state": state, "file": saved}, steps=[
        {**call("save_checkpoint", state, path(saved)), "watch_io": True},
        call("load_checkpoint", path(saved)),
        call("load_checkpoint", path(f"missing-{random_letters(8)}.json")),
    ]))

    small, big = load_sample("cpB"), load_sample("cpC")
    big["messages"][-2]["content"][0]["content"] += "\n" + "会议纪要的附录，很长很长。" * 12_000
    target = f"cp-{random_letters(8)}.json"
    add(Scenario("save_atomic", watch=target, meta={"state": small, "file": target}, steps=[
        call("save_checkpoint", small, path(target)),
        {**call("save_checkpoint", big, path(target)), "file_size_limit": FILE_SIZE_LIMIT},
    ]))

    corrupt, future = f"broken-{random_letters(8)}.json", f"future-{random_letters(8)}.json"
    wrong_version = 2 + secrets.randbelow(8)
    add(Scenario("load_errors", independent_steps=True,
                 files={corrupt: json.dumps(load_sample("cpA"), ensure_ascii=False)[:300],
                        future: json.dumps({**load_sample("cpA"), "version": wrong_version}, ensure_ascii=False)},
                 meta={"corrupt": corrupt, "future": future, "version": wrong_version},
                 steps=[call("load_checkpoint", path(corrupt)), call("load_checkpoint", path(future))]))

    # -- reconcile --
    read_only = [with_pending("cpB", name, tool_input) for name, tool_input in READ_ONLY_CALLS.items()]
    add(Scenario("reconcile_read_only", independent_steps=True, meta={"checkpoints": read_only},
                 steps=[{**call("reconcile", cp), "report_args": True} for cp in read_only]))

    send = with_pending("cpC", "send_email", load_sample("cpC")["pendingToolUse"]["input"])
    add(Scenario("reconcile_send_email", meta={"checkpoints": [send]},
                 emails_before=(send["pendingToolUse"]["input"],),  # it went out just before the crash
                 steps=[{**call("reconcile", send), "report_args": True}]))

    names = sorted(UNHEARD_OF_TOOLS, key=lambda _: secrets.randbelow(1000))[:2]
    unheard_of = [with_pending("cpC", name, UNHEARD_OF_TOOLS[name]) for name in names]
    add(Scenario("reconcile_unheard_of", independent_steps=True, meta={"checkpoints": unheard_of},
                 steps=[{**call("reconcile", cp), "report_args": True} for cp in unheard_of]))

    # -- recovery_action --
    cases = [(load_sample("cpA"), "continue"), (after_save_point_b(), "continue")]
    cases += [(with_pending("cpB", name, tool_input), "rerun") for name, tool_input in READ_ONLY_CALLS.items()]
    cases += [(with_pending("cpC", "send_email", send["pendingToolUse"]["input"]), "is_error")]
    cases += [(with_pending("cpC", name, UNHEARD_OF_TOOLS[name]), "is_error") for name in names]
    add(Scenario("recovery_action", independent_steps=True, meta={"cases": cases},
                 steps=[{**call("recovery_action", cp), "report_args": True} for cp, _ in cases]))

    # -- the multiple-choice answers --
    add(Scenario("answers", independent_steps=True, steps=[
        {"kind": "value", "name": "QUIZ_DELETE_ANSWER"}, {"kind": "value", "name": "ROOT_CAUSE_ANSWER"},
        {"kind": "value", "name": "QUIZ_FAILURE_ANSWER"}]))
    incident_scenarios.build(add)  # Level 2: the incident replayed with the student's own functions

    # -- run_agent, with the grader's own save / load / reconcile --
    def agent(name, task, checkpoint=None, runs=1, **options):
        files = {"checkpoint.json": json.dumps(checkpoint, ensure_ascii=False)} if checkpoint else {}
        step = {**call("run_agent", task, client=CLIENT, path=path("checkpoint.json")), "timeout": AGENT_TIMEOUT,
                "quick_timeout": AGENT_QUICK_TIMEOUT}
        add(Scenario(name, steps=[step] * runs, files=files, watch="checkpoint.json", standins=STANDINS,
                     meta={"task": task, "checkpoint": checkpoint}, **options))

    agent("agent_fresh", MEETING_TASK)
    agent("agent_resume", MEETING_TASK, load_sample("cpA"))
    agent("agent_pending", MEETING_TASK, load_sample("cpB"))
    agent("agent_crash_send", EMAIL_TASK, before_sending(), runs=2, crash={"after_tool": "send_email"})
    # Ten turns left; the process dies before the fourth tool call and is started again.
    agent("agent_max_turns_crash", MEETING_TASK, {**load_sample("cpA"), "turns": max_turns - 10}, runs=2,
          model="endless", crash={"before_tool_call": 4})
    agent("agent_max_turns_spent", MEETING_TASK, {**load_sample("cpA"), "turns": max_turns}, model="endless")
    return scenarios
