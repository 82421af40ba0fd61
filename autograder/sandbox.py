"""Run a student's code where it cannot reach the grader, and watch what it does.

A `Sandbox` owns two things that live for a whole grading session:

- a zygote process (`autograder.child`) that has imported the course runtime and forks
  one child per scenario: a new process group, the `nobody` user when the grader runs
  as root, limits on memory, CPU time, file size and processes, a fresh working folder,
  an environment without API keys;
- an HTTP server in this process that the child must talk to for everything that
  matters: every model call (answered by the course's scripted model, or by an endless
  one), every tool call (run here, against a mail server that lives here and counts
  deliveries), the grader's stand-in save/load/reconcile, and its progress reports.

`Sandbox.run(scenario, cells, memory)` returns an `Outcome`: what each step returned or raised
(as the child reported it), and what the grader saw for itself — model calls, tool
calls, emails delivered, the checkpoint file at each model and tool call, the files
left behind. A child that hangs is killed when its step's time is up; one that dies
only loses the step it was in. A definition cell that hangs or kills the child is left
out from then on, and the scenario runs again without it.
"""
import errno
import json
import os
import pwd
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2

import course.model
import course.tools
from course import TOOLS, MailServer

from .notebook_code import ROOT, load_reference

SANDBOX_USER = "nobody"
READ_ONLY_TOOL_NAMES = frozenset(tool["name"] for tool in TOOLS) - {"send_email"}
MAX_REQUEST_BYTES = 16 * 1024 * 1024
MAX_SCENARIO_BYTES = 128 * 1024 * 1024  # all requests of one scenario: a child cannot fill the grader's memory
ENDLESS_MODEL_CAP = 60  # the endless model gives up after this many calls, so a loop without a bound still ends
CHILD_ERROR_FILE = ".grader-child-error"  # where a child whose driver failed leaves its traceback
CELL_TIMEOUT = 5.0
QUICK_TIMEOUT = 1.0  # for a function that already ran out of time once (correct ones take milliseconds)
STARTUP_TIMEOUT = 30.0
# Folders a sandboxed child must not read: the reference solution, hidden tests, other students' work.
PRIVATE_ENTRIES = (".git", "source", "autograder", "tests", "submitted", "autograded", "feedback", "build",
                   "gradebook.db")


@dataclass
class Limits:
    memory: int = 1024 * 1024 * 1024  # bytes of address space on top of what the zygote already maps
    cpu: int = 60  # seconds of CPU time for one child
    file_size: int = 64 * 1024 * 1024
    processes: int = 64


@dataclass
class Memory:
    """What the sandbox learns about one submission, carried from scenario to scenario."""
    bad_cells: set = field(default_factory=set)  # cells whose definition hangs or kills the child
    hung: set = field(default_factory=set)  # functions that ran out of time once: later calls get less


@dataclass
class Scenario:
    """One situation to put the student's code in, described as data."""
    name: str
    steps: list  # {"kind": "call"|"value", "name": ..., "args": [...], "kwargs": {...}, ...}
    files: dict = field(default_factory=dict)  # written into the working folder first
    watch: str | None = None  # checkpoint file read by the grader at each model and tool call
    model: str = "scripted"  # or "endless": always asks for one more list_dir
    crash: dict | None = None  # {"after_tool": name} or {"before_tool_call": n}: the grader kills the child
    standins: tuple = ()  # names replaced by the grader's own versions after the student's code is defined
    emails_before: tuple = ()  # send_email inputs delivered before the child starts
    independent_steps: bool = False  # a step that hangs or dies does not cancel the later ones
    step_timeout: float = 5.0
    meta: dict = field(default_factory=dict)  # what the checks need to know (ids, expected values)


@dataclass
class Outcome:
    scenario: Scenario
    steps: list  # one dict per step: status, value / error / detail, io, args_after, seconds
    model_calls: list  # {"step", "messages", "status", "reply", "snapshot"}
    tool_calls: list  # {"step", "name", "input", "output", "snapshot"}
    standin_calls: list
    deliveries: list  # the phase in which each email arrived
    files_after: dict  # name -> text (None if missing) for scenario.files and scenario.watch
    cells: dict  # cell name -> {"status": ..., "error": ...} as last reported
    workdir: str  # where the child ran (gone now); paths in messages and io records start with it
    files_by_step: list = field(default_factory=list)  # after each step: sorted relative paths of regular files
    fs_events: list = field(default_factory=list)  # {"step", "op", "path", "dst", "flags"}

    def answered_model_calls(self) -> list:
        return [c for c in self.model_calls if c["status"] == 200]

    def student_tool_calls(self, step: int | None = None) -> list:
        return [c for c in self.tool_calls if step is None or c["step"] == step]

    def emails_during_steps(self) -> int:
        return sum(1 for phase in self.deliveries if phase != "before")


class SandboxError(RuntimeError):
    """The grader could not run the sandbox at all (not the student's fault)."""


def sandbox_identity():
    """(uid, gid) to run children as: `nobody` when we are root and `nobody` can read the course's packages.

    The zygote has already imported the standard library a student may use (see
    autograder.child), so an interpreter `nobody` cannot read (pyenv under /root) is
    no obstacle; the installed packages and the course runtime must be readable.
    Otherwise children run as the grader's own user.
    """
    if os.geteuid() != 0:
        return None, None
    try:
        user = pwd.getpwnam(SANDBOX_USER)
    except KeyError:
        return None, None
    packages = (sysconfig.get_paths()["purelib"], Path(course.tools.__file__).parent)
    if not all(_others_can_read(Path(p)) for p in packages):
        return None, None
    return user.pw_uid, user.pw_gid


def _others_can_read(folder: Path) -> bool:
    folder = folder.resolve()
    try:
        if not all(parent.stat().st_mode & 0o001 for parent in (folder, *folder.parents)):
            return False
        return bool(folder.stat().st_mode & 0o004)
    except OSError:
        return False


def protect_private_files(roots) -> list:
    """Take the 'others' permissions off the folders a sandboxed child must not read."""
    changed = []
    for root in roots:
        for name in PRIVATE_ENTRIES:
            path = Path(root) / name
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode) or not mode & 0o007:
                continue
            os.chmod(path, stat.S_IMODE(mode) & ~0o007)
            changed.append(str(path))
    return changed


class _Zygote:
    """The forking process; one job at a time."""

    def __init__(self, scratch: Path):
        self._process = None
        self._buffer = b""
        self._scratch = scratch  # removed by the zygote when it ends, even if the grader was killed
        self._log = scratch / "zygote.log"  # the zygote's own stderr (children write to /dev/null)

    def _start(self):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": tempfile.gettempdir(),
               "COURSE_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)}
        with self._log.open("ab") as log:
            self._process = subprocess.Popen([sys.executable, "-m", "autograder.child", str(self._scratch)],
                                             cwd=ROOT, env=env,
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                             start_new_session=True)
        self._buffer = b""
        if self._read(time.monotonic() + 120) != {"ready": True}:
            self.close()
            log = self._log.read_text(errors="replace")[-3000:]
            raise SandboxError(f"评分沙箱（autograder.child）没能启动：\n{log}")

    def _alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _read(self, deadline, on_wait=None):
        """The next JSON line from the zygote, or None if it died; `on_wait()` runs while waiting."""
        fd = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            if on_wait:
                on_wait()
            if time.monotonic() > deadline:
                return None
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def run(self, job: dict, on_start, on_wait) -> dict:
        """Fork a child for `job`; return its exit status ({"exit_code"} or {"signal"})."""
        line = json.dumps(job, ensure_ascii=False).encode() + b"\n"
        for attempt in range(2):  # a zygote killed by the previous child is replaced
            if not self._alive():
                self._start()
            try:
                self._process.stdin.write(line)
                self._process.stdin.flush()
                break
            except BrokenPipeError:
                self.close()
        started = self._read(time.monotonic() + 60)
        if started is None:
            self.close()
            return {"zygote_died": True}
        on_start(started["pid"])
        finished = self._read(float("inf"), on_wait)
        if finished is None:  # the zygote is gone (the child may have killed it): the child goes too
            _kill_group(started["pid"])
            self.close()
            return {"zygote_died": True}
        return finished["status"]

    def close(self):
        if self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except OSError:
                pass
            self._process.wait()
            for stream in (self._process.stdin, self._process.stdout):
                stream.close()
            self._process = None


class _Run:
    """The grader's side of one scenario while its children run."""

    def __init__(self, sandbox, scenario: Scenario, workdir: Path, memory: Memory):
        self.sandbox, self.scenario, self.workdir, self.memory, self.mail = sandbox, scenario, workdir, memory, None
        self.lock = threading.RLock()
        self.phase = "before"  # "before", ("cell", name), ("step", index), "end"
        self.phase_started = time.monotonic()
        self.steps = [None] * len(scenario.steps)
        self.files_by_step = [None] * len(scenario.steps)
        self.cells = {}
        self.model_calls, self.tool_calls, self.standin_calls, self.deliveries = [], [], [], []
        self.sequence = 0  # orders model calls and tool calls against each other
        self.pid = None
        self.crashed = False  # the grader has killed the current child on purpose
        self.crash_done = False
        self.sending_before = False  # the grader itself is delivering scenario.emails_before
        self.received = 0  # bytes the children have sent

    def on_delivery(self, message):
        with self.lock:
            self.deliveries.append("before" if self.sending_before else str(self.phase))

    # -- progress reported by the child --

    def event(self, payload: dict) -> dict:
        with self.lock:
            kind = payload.get("kind")
            if kind == "cell":
                self.phase, self.phase_started = ("cell", str(payload.get("name"))), time.monotonic()
                if payload.get("status") != "start":
                    self.cells[str(payload.get("name"))] = {"status": payload.get("status"),
                                                            "error": payload.get("error")}
            elif kind == "step" and isinstance(payload.get("index"), int) and 0 <= payload["index"] < len(self.steps):
                index = payload["index"]
                if payload.get("status") == "start":
                    self.phase, self.phase_started = ("step", index), time.monotonic()
                elif self.steps[index] is None and isinstance(payload.get("result"), dict):
                    self.steps[index] = payload["result"]
                    self.files_by_step[index] = regular_files(self.workdir)
            elif kind == "end":
                self.phase = "end"
        return {}

    def current_step(self):
        with self.lock:
            return self.phase[1] if isinstance(self.phase, tuple) and self.phase[0] == "step" else None

    def _snapshot(self):
        if not self.scenario.watch:
            return None
        path = self.workdir / self.scenario.watch
        try:
            return {"state": json.loads(path.read_text(encoding="utf-8"))}
        except FileNotFoundError:
            return {"missing": True}
        except (ValueError, OSError):
            return {"invalid": True}

    # -- the model --

    def model_call(self, raw: bytes, client: str):
        step = self.current_step()
        if step is None:
            return 400, _api_error("评分时，定义代码的阶段不能调用模型")
        snapshot = self._snapshot()
        try:
            body = json.loads(raw)
            messages = body.get("messages")
        except (ValueError, AttributeError):
            return 400, _api_error("请求不是合法的 JSON")
        if self.scenario.model == "endless":
            status, reply = self._endless_reply(messages)
        else:
            response = course.model._handle_http(httpx2.Request("POST", "http://grader/v1/messages", content=raw))
            status, reply = response.status_code, json.loads(response.content)
        with self.lock:
            self.sequence += 1
            self.model_calls.append({"step": step, "messages": messages, "status": status, "reply": reply,
                                     "snapshot": snapshot, "seq": self.sequence, "client": client})
        return status, reply

    def _endless_reply(self, messages):
        try:
            course.model.check_tool_pairing(messages if isinstance(messages, list) else [])
        except course.model.InvalidRequest as exc:
            return 400, _api_error(str(exc))
        answered = len([c for c in self.model_calls if c["status"] == 200])
        if answered >= ENDLESS_MODEL_CAP:
            content, stop = [{"type": "text", "text": "（评分用模型）不再继续了。"}], "end_turn"
        else:
            content = [{"type": "text", "text": "再看一眼 notes 文件夹。"},
                       {"type": "tool_use", "id": "toolu_01" + secrets.token_hex(11), "name": "list_dir",
                        "input": {"path": "./notes"}}]
            stop = "tool_use"
        usage = {"input_tokens": 2000 + 37 * answered, "output_tokens": 40 + answered % 7}
        return 200, {"id": "msg_01" + secrets.token_hex(11), "type": "message", "role": "assistant",
                     "model": course.model.MODEL, "content": content, "stop_reason": stop, "stop_sequence": None,
                     "usage": usage}

    # -- the tools --

    def run_tool(self, name, tool_input) -> str:
        """Run a tool for real, here; read-only output carries a marker no student can guess."""
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            return f"错误：工具调用的参数不对（name={name!r:.40}）"
        with self.sandbox.tool_lock:
            output = course.tools.execute_tool(name, tool_input)
        if name in READ_ONLY_TOOL_NAMES:
            output += f"\n\n〔评分器标记 {secrets.token_hex(8)}〕"
        return output

    def tool_call(self, payload: dict):
        step = self.current_step()
        if step is None:
            return {"output": "错误：评分时，定义代码的阶段不能调用工具"}
        name, tool_input = payload.get("name"), payload.get("input")
        snapshot = self._snapshot()
        with self.lock:
            self.sequence += 1
            record = {"step": step, "name": name, "input": tool_input, "output": None, "snapshot": snapshot,
                      "seq": self.sequence}
            self.tool_calls.append(record)
            number = len(self.tool_calls)
        crash = self.scenario.crash or {}
        if crash.get("before_tool_call") == number and not self.crash_done:
            self.crash_now()
            return None
        record["output"] = self.run_tool(name, tool_input)
        if crash.get("after_tool") == name and not self.crash_done:
            self.crash_now()
            return None
        return {"output": record["output"]}

    def crash_now(self):
        with self.lock:
            self.crashed = self.crash_done = True
            pid = self.pid
        _kill_group(pid)

    # -- the grader's own save / load / reconcile --

    def standin(self, name: str, payload: dict) -> dict:
        reference = self.sandbox.reference
        record = {"step": self.current_step(), "name": name}
        with self.lock:
            self.standin_calls.append(record)
        try:
            if name == "reconcile":
                with self.sandbox.tool_lock:
                    reference.execute_tool = self._standin_tool
                    return {"cp": reference.reconcile(payload["cp"])}
            path = self._inside(payload["path"])
            if name == "save_checkpoint":
                reference.save_checkpoint(payload["state"], path)
                record["state"] = payload["state"]
                if self.sandbox.uid is not None:
                    os.chown(path, self.sandbox.uid, self.sandbox.gid)
                return {}
            if name == "load_checkpoint":
                return {"state": reference.load_checkpoint(path)}
        except Exception as exc:  # the student's data made the reference fail: tell the student's code
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {"error": f"没有名为 {name} 的替身函数"}

    def _standin_tool(self, name, tool_input):
        self.standin_calls.append({"step": self.current_step(), "name": "execute_tool", "tool": name})
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            return "错误：工具调用的参数不对"
        output = course.tools.execute_tool(name, tool_input)
        return output + (f"\n\n〔评分器标记 {secrets.token_hex(8)}〕" if name in READ_ONLY_TOOL_NAMES else "")

    def _inside(self, path) -> Path:
        target = Path(str(path)).resolve()
        if self.workdir.resolve() not in target.parents:
            raise ValueError("评分时只能在工作目录里读写检查点")
        return target

    # -- deadlines --

    def step_limit(self, index: int) -> float:
        step = self.scenario.steps[index]
        limit = step.get("timeout", self.scenario.step_timeout)
        if step["name"] in self.memory.hung:  # it hung before: do not wait as long again
            limit = min(limit, step.get("quick_timeout", QUICK_TIMEOUT))
        return limit

    def overdue(self) -> bool:
        with self.lock:
            phase, since = self.phase, self.phase_started
        if phase == "before":
            limit = STARTUP_TIMEOUT
        elif phase[0] == "cell":
            limit = CELL_TIMEOUT
        elif phase[0] == "step":
            limit = self.step_limit(phase[1])
        else:
            limit = CELL_TIMEOUT
        return time.monotonic() - since > limit


def _api_error(message: str) -> dict:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _kill_group(pid):
    if pid is None:
        return
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            kill(target, signal.SIGKILL)
            return
        except OSError as exc:
            if exc.errno != errno.ESRCH:
                continue


class _Handler(BaseHTTPRequestHandler):
    server_version = "grader"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small replies on a kept-alive connection: Nagle + delayed ACK cost ~40 ms each

    def log_message(self, *args):
        pass

    def do_POST(self):
        parts = self.path.split("/", 3)  # "", "s", token, rest
        run = self.server.runs.get(parts[2]) if len(parts) == 4 and parts[1] == "s" else None
        length = int(self.headers.get("Content-Length") or 0)
        if run is None or length > MAX_REQUEST_BYTES:
            return self._reply(404, {"error": "unknown"})
        with run.lock:
            run.received += length
            if run.received > MAX_SCENARIO_BYTES:
                return self._reply(413, {"error": "too much data"})
        raw = self.rfile.read(length)
        rest = parts[3].split("?", 1)[0]
        if rest in ("v1/messages", "given/v1/messages"):
            status, body = run.model_call(raw, "given" if rest.startswith("given/") else "make_client")
            return self._reply(status, body)
        try:
            payload = json.loads(raw)
        except ValueError:
            return self._reply(400, {"error": "bad json"})
        if not isinstance(payload, dict):
            return self._reply(400, {"error": "bad json"})
        if rest == "event":
            return self._reply(200, run.event(payload))
        if rest == "tool":
            reply = run.tool_call(payload)
            if reply is None:  # the child was killed on purpose; nobody is listening
                self.close_connection = True
                return
            return self._reply(200, reply)
        if rest.startswith("standin/"):
            return self._reply(200, run.standin(rest.split("/", 1)[1], payload))
        return self._reply(404, {"error": "unknown"})

    def _reply(self, status: int, body: dict):
        data = json.dumps(body, ensure_ascii=False).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id", "req_grader")
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass


class Sandbox:
    """The zygote and the grader's endpoints, for one grading session (one student at a time)."""

    def __init__(self, limits: Limits | None = None, protect: bool = True):
        self.limits = limits or Limits()
        self.uid, self.gid = sandbox_identity()
        self.protected = protect_private_files({ROOT, Path.cwd()}) if protect and self.uid is not None else []
        if self.protected:
            print(f"评分沙箱：子进程以 {SANDBOX_USER} 运行，已收回其他用户对这些路径的读权限：{', '.join(self.protected)}",
                  file=sys.stderr)
        self.reference = load_reference()
        self.tool_lock = threading.RLock()
        self._base = Path(tempfile.mkdtemp(prefix="grader-", dir=_scratch_folder()))
        os.chmod(self._base, 0o711)  # children may enter their own folder but not list the others
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.runs = {}
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self._zygote = _Zygote(self._base)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self._server.server_port}"

    def run(self, scenario: Scenario, cells: list, memory: Memory) -> Outcome:
        """Run every step of `scenario` after defining `cells` ({"name", "source"}) minus the bad ones."""
        workdir = Path(tempfile.mkdtemp(dir=self._base))
        for name, content in scenario.files.items():
            (workdir / name).parent.mkdir(parents=True, exist_ok=True)
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            (workdir / name).write_bytes(data)
        for name in _step_paths(scenario):
            (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        if self.uid is not None:
            for path in [workdir, *workdir.rglob("*")]:
                os.chown(path, self.uid, self.gid)
        token = secrets.token_urlsafe(16)
        run = _Run(self, scenario, workdir, memory)
        try:
            with MailServer(on_delivery=run.on_delivery) as mail:
                run.mail = mail
                run.sending_before = True
                for email in scenario.emails_before:
                    run.run_tool("send_email", dict(email))
                run.sending_before = False
                self._server.runs[token] = run
                self._children(run, scenario, cells, memory, token)
                files_after = {}
                for name in {*scenario.files, *([scenario.watch] if scenario.watch else [])}:
                    try:  # a file cut off mid-character is still there, and still broken
                        files_after[name] = (workdir / name).read_bytes().decode("utf-8", errors="replace")
                    except OSError:
                        files_after[name] = None
        finally:
            self._server.runs.pop(token, None)
            shutil.rmtree(workdir, ignore_errors=True)
        steps = [s if s is not None else {"status": "not_run"} for s in run.steps]
        fs_events = [{"step": index, **_fs_event(e)} for index, s in enumerate(steps)
                     for e in s.get("io", []) if isinstance(e, dict)]
        return Outcome(scenario, steps, run.model_calls, run.tool_calls, run.standin_calls, run.deliveries,
                       files_after, run.cells, str(workdir), run.files_by_step, fs_events)

    def _children(self, run: _Run, scenario: Scenario, cells: list, memory: Memory, token: str):
        first_step = 0
        for _ in range(len(cells) + len(scenario.steps) + 2):
            if first_step >= len(scenario.steps):
                return
            job = {"workdir": str(run.workdir), "uid": self.uid, "gid": self.gid, "server": self.address,
                   "token": token, "env": self._child_env(run), "limits": vars(self.limits),
                   "cells": [c for c in cells if c["name"] not in memory.bad_cells],
                   "standins": list(scenario.standins),
                   "steps": scenario.steps, "first_step": first_step, "error_file": CHILD_ERROR_FILE}
            with run.lock:
                run.phase, run.phase_started, run.crashed = "before", time.monotonic(), False
            timed_out = []

            def on_start(pid):
                with run.lock:
                    run.pid = pid

            def on_wait():
                if not timed_out and run.overdue():
                    timed_out.append(True)
                    _kill_group(run.pid)

            status = self._zygote.run(job, on_start, on_wait)
            with run.lock:
                phase, crashed = run.phase, run.crashed
                run.pid = None
            if phase == "end":
                return
            if phase == "before":  # no student code has run yet: the grader itself is broken
                error_file = run.workdir / CHILD_ERROR_FILE
                details = error_file.read_text() if error_file.exists() else ""
                how = "超时" if timed_out else _how_it_died(status)
                raise SandboxError(f"评分沙箱的子进程没能启动（{how}）\n{details}")
            if phase[0] == "cell":
                memory.bad_cells.add(phase[1])  # defining this cell hangs or kills the process: leave it out
                run.cells[phase[1]] = {"status": "timeout" if timed_out else "died",
                                       "error": {"type": "", "message": _how_it_died(status)}}
                continue
            index = phase[1]
            if run.steps[index] is None:
                if crashed:
                    run.steps[index] = {"status": "crashed_by_grader"}
                elif timed_out:
                    run.steps[index] = {"status": "timeout", "detail": f"{run.step_limit(index):g} 秒"}
                    memory.hung.add(scenario.steps[index]["name"])
                else:
                    run.steps[index] = {"status": "died", "detail": _how_it_died(status)}
            first_step = index + 1
            if not (crashed or scenario.independent_steps):
                return

    def _child_env(self, run: _Run) -> dict:
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(run.workdir), "COURSE_OFFLINE": "1",
                "COURSE_SMTP_PORT": str(run.mail.port), "COURSE_MAILDIR": str(run.workdir / "maildir"),
                "PYTHONDONTWRITEBYTECODE": "1"}

    def close(self):
        self._zygote.close()
        self._server.shutdown()
        self._server.server_close()
        shutil.rmtree(self._base, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def regular_files(folder: Path) -> list:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _step_paths(scenario: Scenario):
    for step in scenario.steps:
        for value in [*step.get("args", []), *step.get("kwargs", {}).values()]:
            if isinstance(value, dict) and "$path" in value:
                yield value["$path"]


def _fs_event(record: dict) -> dict:
    if record.get("op") == "write":
        return {"op": "open", "path": record.get("path"), "flags": "O_WRONLY|O_CREAT"}
    if record.get("op") == "rename":
        return {"op": "rename", "path": record.get("src"), "dst": record.get("dst")}
    return dict(record)


def _scratch_folder():
    """Working folders go to memory when possible: checkpoints fsync a lot, and fsync on tmpfs costs nothing."""
    shared_memory = Path("/dev/shm")
    return str(shared_memory) if shared_memory.is_dir() and os.access(shared_memory, os.W_OK | os.X_OK) else None


def _how_it_died(status: dict) -> str:
    if status.get("zygote_died"):
        return "评分沙箱本身退出了"
    if "signal" in status:
        name = {signal.SIGKILL: "SIGKILL", signal.SIGXCPU: "SIGXCPU（CPU 时间用完）", signal.SIGSEGV: "SIGSEGV",
                signal.SIGXFSZ: "SIGXFSZ（文件太大）"}.get(status["signal"], f"信号 {status['signal']}")
        return f"进程被 {name} 终止"
    return f"进程自己退出了（退出码 {status.get('exit_code')}）"
