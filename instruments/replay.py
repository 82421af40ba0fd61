"""The duplicate-email incident, replayed for real.

The agent (your own `run_agent` and `reconcile`) runs as its own OS process,
started with `os.fork()`. The mail server stays here, in the harness, so what it
received is counted where the agent cannot touch it. The harness lets the agent
run until a chosen crash point, kills it there with SIGKILL (what the Linux OOM
killer sends: no cleanup, no `finally`), then starts it again on the same
checkpoint.json (`--resume`), lets it finish and checks what happened.

    result = replay_incident(run_agent, incident_reconcile)
    result.emails_delivered   # 2: the incident
    result = replay_incident(run_agent, reconcile)
    result.emails_delivered   # 1, and the dangling call got is_error

Crash points are the moments the agent's process crosses a boundary the harness
watches, so they exist for any implementation: a model call, a tool call, and
the file operations of a save in the checkpoint's folder (and, in lesson 4, of
an append to the effect ledger beside it). The child process
reports each one through a pipe; at the chosen one it stops and waits to be
killed. `instruments.crash_matrix` uses the same machinery for every crash point.
"""
import builtins
import contextlib
import html
import io
import json
import os
import select
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import course
from course import tools
from course.checks import call_text, describe_block, short
from course.ledger import LEDGER_NAME
from course.mail import MailServer
from course.model import InvalidRequest, check_tool_pairing, content_blocks, make_client, warm_up
from course.samples import load_sample

from .host import memory_tmp_dir

# The lesson's two tasks the agent is replayed on, by name, as its sample checkpoints carry them.
REPLAY_TASKS = {"email": load_sample("cpC")["task"], "notes": load_sample("cpA")["task"]}
TIMEOUT = 20  # seconds one agent process may take before the harness gives up on it

INVARIANTS = {
    "checkpoint_loads": "检查点总能读回",
    "tool_results_paired": "每个 tool_use 都有 tool_result",
    "no_duplicate_effect": "高影响操作没有执行两次",
    "turns_within_limit": "turns 不超过 MAX_TURNS",
    "task_finished": "任务完成",
}


@dataclass
class Agent:
    """The code under test: your functions, run as they are, in a child process."""
    run_agent: Callable
    reconcile: Callable
    save_checkpoint: Callable | None = None  # None: the one run_agent already uses
    task: str = REPLAY_TASKS["email"]

    @property
    def max_turns(self) -> int:
        return self.run_agent.__globals__.get("MAX_TURNS", 40)


def is_incident_point(event: dict) -> bool:
    """The incident's moment: send_email has delivered, its result is not saved yet."""
    return event == {"kind": "tool", "when": "after", "name": "send_email"}


# --- inside the agent's process ----------------------------------------------------------

class _Probe:
    """Notes each crash point the agent passes; at the chosen one, tells the harness and waits to be killed."""

    def __init__(self, report_fd: int, hold_fd: int, stop_at: Callable | None):
        self.report_fd, self.hold_fd, self.stop_at = report_fd, hold_fd, stop_at
        self.events = []

    def report(self, **outcome) -> None:
        """The one message to the harness: the crash points passed, and how the run ended."""
        message = json.dumps({"events": self.events, **outcome}, ensure_ascii=False) + "\n"
        os.write(self.report_fd, message.encode())

    def event(self, kind: str, when: str, **detail) -> None:
        event = {"kind": kind, "when": when, **detail}
        self.events.append(event)
        if self.stop_at and self.stop_at(len(self.events) - 1, event):
            self.report(reached=len(self.events) - 1)
            os.read(self.hold_fd, 1)  # blocks until SIGKILL; returns only if the harness itself died
            os._exit(1)


class _WatchedFile:
    """A file being written in the checkpoint's folder, with crash points inside the save (or the ledger's append)."""

    def __init__(self, file, probe: _Probe, role: str):
        self._file, self._probe, self._role = file, probe, role
        self._kind = "ledger" if role == "ledger" else "save"
        self._closed = False

    def write(self, data):
        # The first write is where "half a file on disk" can happen: write half, flush, crash point.
        self.write = self._file.write  # later writes go straight to the file (json.dump makes thousands)
        half = len(data) // 2
        written = self._file.write(data[:half])
        self._file.flush()
        self._probe.event(self._kind, "write", file=self._role)
        return written + self._file.write(data[half:])

    def close(self):
        self._file.close()
        if not self._closed:
            self._closed = True
            self._probe.event(self._kind, "closed", file=self._role)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __getattr__(self, name):  # flush, fileno, ... go to the real file
        return getattr(self._file, name)


def _install_probes(agent: Agent, path: Path, probe: _Probe):
    """Put this process's agent together and wire the crash points; return the model client."""
    namespace = agent.run_agent.__globals__  # the notebook's globals (this process's copy)
    namespace["reconcile"] = agent.reconcile
    if agent.save_checkpoint:
        namespace["save_checkpoint"] = agent.save_checkpoint

    real_tool = namespace.get("execute_tool", tools.execute_tool)

    def watched_tool(name, input, **options):  # options: lesson 4's idempotency_key
        probe.event("tool", "before", name=name)
        output = real_tool(name, input, **options)
        probe.event("tool", "after", name=name)
        return output

    for module_globals in (namespace, agent.reconcile.__globals__, vars(tools), vars(course)):
        if "execute_tool" in module_globals:  # the contract: execute_tool is looked up when called
            module_globals["execute_tool"] = watched_tool

    folder = path.resolve().parent
    real_open, real_replace, real_rename = io.open, os.replace, os.rename

    def watched_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if not any(flag in mode for flag in "wax+"):
            return handle
        opened = Path(os.readlink(f"/proc/self/fd/{handle.fileno()}"))  # also names files opened by fd
        if opened.parent != folder:
            return handle
        role = {path.name: "checkpoint", LEDGER_NAME: "ledger"}.get(opened.name, "temp")
        return _WatchedFile(handle, probe, role)

    def watched_move(real_move):
        def move(source, target, *args, **kwargs):
            if Path(target).resolve().parent != folder:
                return real_move(source, target, *args, **kwargs)
            probe.event("save", "before_rename")
            real_move(source, target, *args, **kwargs)
            probe.event("save", "after_rename")
        return move

    io.open = builtins.open = watched_open
    os.replace, os.rename = watched_move(real_replace), watched_move(real_rename)

    client = make_client(offline=True)
    real_create, calls = client.messages.create, [0]

    def watched_create(*args, **kwargs):
        calls[0] += 1
        probe.event("model", "before", call=calls[0], messages=len(kwargs.get("messages", [])))
        response = real_create(*args, **kwargs)
        probe.event("model", "after", call=calls[0])
        return response

    client.messages.create = watched_create
    return client


def _agent_process_main(agent, path, stop_at, report_fd, hold_fd, log_path) -> None:
    """The child's whole life. It must never return into the caller's code (a notebook kernel)."""
    code = 1
    try:
        # The kernel's stdout/stderr talk to threads that do not exist after fork: use a file.
        log = open(log_path, "a", encoding="utf-8", buffering=1)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        sys.stdout = sys.stderr = log
        probe = _Probe(report_fd, hold_fd, stop_at)
        try:
            client = _install_probes(agent, path, probe)
            agent.run_agent(agent.task, client=client, path=path)
            probe.report(finished=True)
            code = 0
        except BaseException as exc:  # the student's code may raise anything, even SystemExit
            traceback.print_exc()
            probe.report(error=f"{type(exc).__name__}: {exc}")
    finally:
        os._exit(code)


# --- in the harness -----------------------------------------------------------------------

@dataclass
class AgentRun:
    """One start of the agent's process: what it reported and how it ended."""
    pid: int
    events: list = field(default_factory=list)
    stopped_at: int | None = None  # index of the crash point it reached
    error: str | None = None       # the exception run_agent raised, if any
    timed_out: bool = False
    exit_code: int | None = None
    signal: int | None = None      # 9 when killed with SIGKILL

    @property
    def crash_event(self) -> dict | None:
        return None if self.stopped_at is None else self.events[self.stopped_at]

    def to_dict(self) -> dict:
        return {"pid": self.pid, "exit_code": self.exit_code, "signal": self.signal,
                "error": self.error, "timed_out": self.timed_out}


def run_agent_process(agent: Agent, path: Path, stop_at: Callable | None = None,
                      timeout: float = TIMEOUT) -> AgentRun:
    """Start the agent as a child process; if it reaches `stop_at(index, event)`, SIGKILL it there."""
    warm_up()
    report_r, report_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(report_r)
        os.close(hold_w)
        _agent_process_main(agent, path, stop_at, report_w, hold_r, path.parent / "agent.log")
    os.close(report_w)
    os.close(hold_r)
    run, finished = AgentRun(pid), False
    try:
        _follow_reports(run, report_r, timeout)
        finished = run.stopped_at is None and not run.timed_out
    finally:
        if not finished:
            os.kill(pid, signal.SIGKILL)  # at the crash point, out of time, or the harness was interrupted
        _, status = os.waitpid(pid, 0)
        os.close(report_r)
        os.close(hold_w)
    run.signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    run.exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    return run


def _follow_reports(run: AgentRun, report_fd: int, timeout: float) -> None:
    """Wait for the child's report: it stopped at the crash point or ended (or it ran out of time)."""
    received = b""
    deadline = time.monotonic() + timeout
    while not received.endswith(b"\n"):
        ready, _, _ = select.select([report_fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            run.timed_out = True
            return
        chunk = os.read(report_fd, 1 << 16)
        if not chunk:
            break  # the process ended without a word (os._exit in the student's code, for one)
        received += chunk
    report = json.loads(received or b"{}")
    run.events, run.error, run.stopped_at = report.get("events", []), report.get("error"), report.get("reached")


@dataclass
class CheckpointFile:
    """checkpoint.json as found on disk: the state, or why it cannot be read."""
    state: dict | None
    problem: str | None = None

    @classmethod
    def read(cls, path: Path) -> "CheckpointFile":
        if not path.exists():
            return cls(None)
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return cls(None, f"不是合法的 JSON（{exc}）")
        if not isinstance(state, dict) or state.get("version") != 1:
            return cls(None, "不是版本 1 的检查点")
        if not isinstance(state.get("messages"), list) or not all(isinstance(m, dict) for m in state["messages"]):
            return cls(None, "messages 不是一列消息")
        return cls(state)


@dataclass
class ReplayResult:
    """One crash-and-resume: killed at a crash point, resumed, run to the end, checked."""
    label: str
    killed: AgentRun
    at_crash: CheckpointFile
    emails_at_crash: int
    resumed: AgentRun | None
    final: CheckpointFile
    emails: list  # (received at, to, subject), as the mail server stored them
    invariants: dict  # name -> True / False / None (could not be checked)

    @property
    def emails_delivered(self) -> int:
        return len(self.emails)

    @property
    def dangling(self) -> dict | None:
        """The call pending in the checkpoint the crash left behind."""
        pending = (self.at_crash.state or {}).get("pendingToolUse")
        return pending if isinstance(pending, dict) else None

    @property
    def resume_messages(self) -> list:
        """What the resumed process added to `messages` (after the reconcile, if any, ran)."""
        if not self.final.state:
            return []
        kept = len((self.at_crash.state or {}).get("messages", []))
        first_call = next((e for e in (self.resumed.events if self.resumed else []) if e["kind"] == "model"), None)
        if first_call:  # a reconcile that deletes a message leaves fewer than were saved
            kept = min(kept, first_call["messages"])
        return self.final.state["messages"][kept:]

    @property
    def dangling_result(self) -> dict | None:
        """The tool_result the reconcile gave the dangling call on resume: {content, is_error}."""
        added = self.resume_messages
        for block in content_blocks(added[0]) if added and self.dangling else []:
            if block.get("type") == "tool_result" and block.get("tool_use_id") == self.dangling.get("id"):
                return {"content": _text(block.get("content")), "is_error": block.get("is_error", False)}
        return None

    @property
    def final_text(self) -> str:
        messages = (self.final.state or {}).get("messages", [])
        last = messages[-1] if messages else {}
        return "".join(_text([b]) for b in content_blocks(last) if b.get("type") == "text") if last.get("role") == "assistant" else ""

    @property
    def holds(self) -> bool:
        return all(self.invariants.values())

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "emails_delivered": self.emails_delivered,
            "emails_at_crash": self.emails_at_crash,
            "killed": {**self.killed.to_dict(), "at": describe_event(self.killed.crash_event),
                       "turns": (self.at_crash.state or {}).get("turns"), "pendingToolUse": self.dangling},
            "resumed": self.resumed and self.resumed.to_dict(),
            "dangling_result": self.dangling_result,
            "final_text": self.final_text,
            "turns": (self.final.state or {}).get("turns"),
            "invariants": self.invariants,
        }

    def report_lines(self) -> list[str]:
        state = self.at_crash.state
        lines = [f"【{self.label}】",
                 f"1. 第一次启动 agent 进程（pid {self.killed.pid}），任务「{_task(self)}」。"]
        if self.killed.stopped_at is None:
            lines.append(f"   没有走到崩溃点：{self.killed.error or ('超时' if self.killed.timed_out else '正常结束')}。")
        else:
            lines.append(f"   在「{describe_event(self.killed.crash_event)}」时，守护进程发出 SIGKILL，"
                         f"进程被信号 {self.killed.signal} 杀死（就像 OOM Killer）。")
        lines.append(f"   此刻邮件服务器已收到 {self.emails_at_crash} 封；checkpoint.json："
                     + (self.at_crash.problem and f"读不回来，{self.at_crash.problem}"
                        or state and f"turns={state.get('turns')}，pendingToolUse={call_text(self.dangling)}"
                        or "还不存在"))
        if self.resumed:
            ending = (f"抛出了异常：{self.resumed.error}" if self.resumed.error
                      else "超时，被守护进程杀掉" if self.resumed.timed_out else f"正常结束（退出码 {self.resumed.exit_code}）")
            lines.append(f"2. 第二次启动 agent 进程（pid {self.resumed.pid}，--resume）：从崩溃留下的 checkpoint.json 续跑，{ending}。")
            result = self.dangling_result
            if self.dangling:
                lines.append("   悬空调用拿到的 tool_result：" + (
                    f"is_error={result['is_error']}，内容「{short(result['content'], 60)}」" if result
                    else "没有——那条 assistant 消息被删掉了，模型只好重新决定"))
            for message in self.resume_messages[1 if result else 0:]:
                lines.extend(f"   {'模型' if message['role'] == 'assistant' else '工具'}：{short(describe_block(b), 90)}"
                             for b in content_blocks(message))
        lines.append(f"3. 邮件服务器一共收到 {self.emails_delivered} 封：")
        lines.extend(f"   - {at}  收件人 {to}  主题「{subject}」" for at, to, subject in self.emails)
        lines.append("   " + "  ".join(("✓ " if ok else "✗ " if ok is False else "? ") + INVARIANTS[name]
                                      for name, ok in self.invariants.items()))
        return lines

    def report(self) -> str:
        return "\n".join(self.report_lines())

    def _repr_html_(self) -> str:
        verdict = "incident-ok" if self.holds else "incident-broken"
        return (f'<pre class="incident-replay {verdict}" style="white-space:pre-wrap">'
                f"{html.escape(self.report())}</pre>")


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content or "")


def _task(result: ReplayResult) -> str:
    return ((result.final.state or result.at_crash.state or {}).get("task")) or "?"


SAVE_STEPS = {"write": "写到一半", "closed": "写完", "before_rename": "改名之前", "after_rename": "改名之后"}


def describe_event(event: dict | None, save_point: str = "") -> str:
    """A crash point in words, e.g. "send_email 执行完、结果还没存"; save_point "A" or "B" names the save."""
    if not event:
        return "（无）"
    when = event["when"]
    if event["kind"] == "model":
        return f"第 {event['call']} 次模型调用" + ("之前" if when == "before" else "返回后、响应还没存")
    if event["kind"] == "tool":
        return f"{event['name']} " + ("执行之前" if when == "before" else "执行完、结果还没存")
    if event["kind"] == "ledger":
        return "效果台账：追加" + SAVE_STEPS[when]
    file = {"temp": "临时文件", "checkpoint": "checkpoint.json"}.get(event.get("file"), "") if when in ("write", "closed") else ""
    return f"存档{'点 ' + save_point if save_point else ''}：{file}{SAVE_STEPS[when]}"


def check_invariants(agent: Agent, at_crash: CheckpointFile, resumed: AgentRun | None,
                     final: CheckpointFile, emails: list, expect_email: bool) -> dict:
    """The properties that must hold after any crash and resume (None: could not be checked)."""
    state = final.state
    paired = None
    if state is not None:
        try:
            check_tool_pairing(state["messages"])
            paired = state.get("pendingToolUse") is None
        except (InvalidRequest, AttributeError, KeyError, TypeError):  # the API would refuse it too
            paired = False
    sent = [(to, subject) for _, to, subject in emails]
    last = ((state or {}).get("messages") or [{}])[-1]
    finished = bool(resumed and resumed.exit_code == 0 and not resumed.error and state
                    and last.get("role") == "assistant" and paired
                    and not any(b.get("type") == "tool_use" for b in content_blocks(last))
                    and (sent or not expect_email))
    return {
        "checkpoint_loads": at_crash.problem is None and final.problem is None,
        "tool_results_paired": paired,
        "no_duplicate_effect": len(sent) == len(set(sent)),
        "turns_within_limit": None if state is None else state.get("turns", 0) <= agent.max_turns,
        "task_finished": finished,
    }


def crash(agent: Agent, stop_at: Callable, *, folder: Path, mail: MailServer, timeout: float = TIMEOUT) -> tuple:
    """Run the agent from scratch and SIGKILL it at `stop_at`: (the run, checkpoint.json then, emails then)."""
    path = folder / "checkpoint.json"
    killed = run_agent_process(agent, path, stop_at, timeout)
    return killed, CheckpointFile.read(path), mail.count()


def resume(agent: Agent, crashed: tuple, label: str, *, folder: Path, mail: MailServer,
           timeout: float = TIMEOUT) -> ReplayResult:
    """Start the agent again on the checkpoint a crash left in `folder`, let it finish, check."""
    killed, at_crash, emails_at_crash = crashed
    path = folder / "checkpoint.json"
    resumed = run_agent_process(agent, path, None, timeout) if killed.stopped_at is not None else None
    final = CheckpointFile.read(path)
    emails = [(m["X-Received-At"], m["To"], m["Subject"]) for m in mail.received()]
    invariants = check_invariants(agent, at_crash, resumed, final, emails,
                                  expect_email=agent.task == REPLAY_TASKS["email"])
    return ReplayResult(label, killed, at_crash, emails_at_crash, resumed, final, emails, invariants)


@contextlib.contextmanager
def scratch_space(prefix: str):
    """A fresh folder (in RAM when possible) for one run, and a mail server storing into it."""
    with tempfile.TemporaryDirectory(prefix=prefix, dir=memory_tmp_dir()) as folder, MailServer(maildir=folder) as mail:
        yield Path(folder), mail


def replay_incident(run_agent: Callable, reconcile: Callable, *, label: str | None = None,
                    save_checkpoint: Callable | None = None, timeout: float = TIMEOUT) -> ReplayResult:
    """The incident for real: SIGKILL right after send_email delivered (before save point B), then --resume."""
    agent = Agent(run_agent, reconcile, save_checkpoint)
    label = label or f"reconcile = {getattr(reconcile, '__name__', 'reconcile')}"
    with scratch_space("incident-") as (folder, mail):
        crashed = crash(agent, lambda index, event: is_incident_point(event), folder=folder, mail=mail,
                        timeout=timeout)
        return resume(agent, crashed, label, folder=folder, mail=mail, timeout=timeout)  # the same checkpoint.json
