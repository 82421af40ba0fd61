"""Run a student's code where it cannot reach the grader, and watch what it does from outside.

A `Sandbox` owns, for a whole grading session (one student after another):

- a zygote process (`autograder.child`) that has imported the course runtime, inside
  bubblewrap: its own user, pid, network, mount, ipc and uts namespaces, uid 65534,
  read-only binds of only the system libraries, the interpreter and its packages,
  course/ and the driver file; a private /tmp and a size-limited /work. No source/,
  autograder/ hidden tests, tests/, submitted/, feedback/, gradebook or home folder is
  there to be read. For each step of a scenario (or batch of steps) it clones a process
  into fresh namespaces again, so whatever a step starts ends with it (see autograder.child);
- strace around the whole sandbox: the grader's own record of what the file system saw
  (autograder.fs_trace), whatever the student's code does to os, json or the builtins;
- an HTTP server on a Unix socket, the only door out of the sandbox (bound into it at
  /run/grader): every model call (answered by the course's scripted model, or by an
  endless one), every tool call (run here, against a mail server that lives here and
  counts deliveries by Message-ID, so by idempotency key), every lookup by key (lesson 4: the
  grader asks that server, or answers that it is down), the grader's stand-in save/load/reconcile (only in the scenarios
  that name them), and the steps' progress reports. The kernel tells the server which
  process is on the other end (SO_PEERCRED), so a step's process can be killed from here.

`Sandbox.run(scenario, cells, trouble)` returns an `Outcome`: what each step returned or
raised (as its process reported it), and what the grader saw for itself: model calls,
tool calls, emails delivered, file-system events in order, the files in the working
folder after each step, the checkpoint file at each model and tool call. A step that
hangs is killed when its time is up; a definition cell that hangs or kills the process
is left out from then on, and the step runs again without it.

Where namespaces cannot be made (bubblewrap missing, user namespaces disabled), a
Sandbox refuses to start (`IsolationUnavailable`, Chinese and English) unless the
instructor accepts the risk with `--allow-unisolated` (environment
AUTOGRADER_ALLOW_UNISOLATED=1): then steps run as the grader's own user, with strace
still watching. AUTOGRADER_BWRAP names the bubblewrap binary (default: `bwrap` on PATH).
"""
import json
import os
import secrets
import select
import shutil
import signal
import socket
import socketserver
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path

import course.model
import course.tools
from course import TOOLS, MailServer, ServiceUnavailable
from instruments.host import memory_tmp_dir  # the strace log grows with every step: in memory when possible

from . import fs_trace
from .child import MARK_PREFIX, SYS_CLONE
from .protocol import (BEFORE, DEFINING, REPORTED_STATUSES, ZYGOTE_TOKEN, CellStatus, Endpoint, EventKind,
                       EventStatus, Job, ModelRoute, Phase, PhaseKind, StepStatus)
from .lessons import DEFAULT, Lesson
from .notebook_code import ROOT, load_reference
from .pids_cgroup import PidsCgroup, controller_root
from .trouble import kinds_of_error

READ_ONLY_TOOL_NAMES = frozenset(tool["name"] for tool in TOOLS) - {"send_email"}
MAX_REQUEST_BYTES = 16 * 1024 * 1024
MAX_HEADER_LINE, MAX_HEADERS = 65536, 100  # what http.server allows
MAX_SCENARIO_BYTES = 128 * 1024 * 1024  # all requests of one scenario: a child cannot fill the grader's memory
ENDLESS_MODEL_CAP = 60  # the endless model gives up after this many calls, so a loop without a bound still ends
MAX_EVENTS_PER_STEP = 5000  # file-system events kept per step
MAX_FILES_LISTED = 500
MAX_TRACE_BYTES = 64 * 1024 * 1024  # the strace log is started afresh (with the zygote) past this size
CELL_TIMEOUT = 5.0
QUICK_TIMEOUT = 1.0  # for a function that already ran out of time once (correct ones take milliseconds)
STARTUP_TIMEOUT = 30.0
TRACE_TIMEOUT = 10.0  # strace writes a step's last line before the zygote's end mark; waiting longer is a bug
SANDBOX_UID = 65534  # "nobody" inside the sandbox's own user namespace
APP_INSIDE = "/sandbox/app"  # course/ and the driver, read-only
WORK_INSIDE = "/sandbox/work"
STEP_TMP_INSIDE = "/sandbox/step-tmp"  # where each step's fresh /tmp is made before it is moved onto /tmp
SOCKET_DIR_INSIDE = "/run/grader"
SOCKET_NAME = "grader.sock"
ALLOW_ENV = "AUTOGRADER_ALLOW_UNISOLATED"
BWRAP_ENV = "AUTOGRADER_BWRAP"
ALLOW_FLAG = "--allow-unisolated"


@dataclass
class Limits:
    memory: int = 1024 * 1024 * 1024  # bytes of address space on top of what the zygote already maps
    cpu: int = 60  # seconds of CPU time for one step
    file_size: int = 64 * 1024 * 1024
    processes: int = 16  # in the step's own user namespace (the lesson needs one)
    cgroup_tasks: int = 64  # a root grader's whole sandbox: strace, bwrap, the zygote, a step's processes and threads
    files: int = 256  # open at once
    tmp_size: int = 64 * 1024 * 1024  # the step's /tmp
    work_size: int = 256 * 1024 * 1024  # every working folder of the session together


@dataclass
class SubmissionTrouble:
    """What went wrong with one submission so far, carried from scenario to scenario."""
    bad_cells: set = field(default_factory=set)  # cells whose definition hangs or kills the process
    hung: set = field(default_factory=set)  # functions that ran out of time once: later calls get less
    report_cells: bool = False  # a definition hung or killed a process: each cell is reported before it runs
    kinds: Counter = field(default_factory=Counter)  # autograder.trouble.KINDS -> how often it was seen


@dataclass
class Scenario:
    """One situation to put the student's code in, described as data."""
    name: str
    steps: list  # of protocol.Step: {"kind": "call"|"value", "name": ..., "args": [...], "kwargs": {...}, ...}
    # Each step runs in a fresh process, except that consecutive steps with the same "batch" share one:
    # for calls judged together (one point for all), where one call cannot learn from another what to answer.
    files: dict = field(default_factory=dict)  # relative path (may be nested) -> text or bytes, written first
    watch: str | None = None  # checkpoint file read by the grader at each model and tool call
    model: str = "scripted"  # or "endless": always asks for one more list_dir
    # {"after_tool": name}, {"before_tool": name} or {"before_tool_call": n}: the grader kills the step
    crash: dict | None = None
    standins: tuple = ()  # names replaced by the grader's own versions after the student's code is defined
    # delivered before the first step: send_email inputs, or (input, idempotency key) pairs (sent with that key)
    emails_before: tuple = ()
    service_down: bool = False  # the mail server cannot be reached: sends fail, lookups raise ServiceUnavailable
    ledgers: tuple = ()  # files (lesson 4's ledgers) whose text the grader reads at each tool call
    read_after: tuple = ()  # more relative paths whose text files_after holds (None if missing)
    independent_steps: bool = False  # a step that hangs or dies does not cancel the later ones
    step_timeout: float = 5.0
    meta: dict = field(default_factory=dict)  # what the checks need to know (ids, expected values)


@dataclass
class Outcome:
    scenario: Scenario
    steps: list  # one dict per step: status, value / error / detail, args_after, seconds
    # "at": where strace's log ended when the grader got the call, to order it against fs_events
    model_calls: list  # {"step", "client" ("given" | "make_client"), "messages", "status", "reply", "snapshot", "at"}
    tool_calls: list  # {"step", "name", "input", "key", "output", "snapshot", "ledgers" ({path: text}), "at"}
    standin_calls: list
    deliveries: list  # the phase in which each email arrived
    delivered_ids: list  # the Message-ID of each email, in the same order (a keyed one: <key@...>)
    lookups: list  # {"step", "name", "key", "answer" (text or None), "unavailable" (bool), "at"}
    files_after: dict  # relative path -> text (None if missing) for scenario.files and scenario.watch
    cells: dict  # cell name -> {"status": ..., "error": ...} as last reported
    workdir: str  # where the steps ran, as the student's code saw it; paths in fs_events start with it
    fs_events: list = field(default_factory=list)  # autograder.fs_trace records, in the order the kernel saw them
    files_by_step: list = field(default_factory=list)  # per step: sorted relative paths of the regular files after it

    def answered_model_calls(self) -> list:
        return [c for c in self.model_calls if c["status"] == 200]

    def student_tool_calls(self, step: int | None = None) -> list:
        return [c for c in self.tool_calls if step is None or c["step"] == step]

    def emails_during_steps(self) -> int:
        return sum(1 for phase in self.deliveries if phase != str(BEFORE))


class SandboxError(RuntimeError):
    """The grader could not run the sandbox at all (not the student's fault)."""


class IsolationUnavailable(SystemExit):
    """Namespaces cannot be made here: grading stops before anyone is graded (SystemExit: nbgrader does
    not catch it and go on to the next student)."""


def isolation_refusal(reason: str) -> str:
    return (f"评分已停止，没有给任何学生评分：评分沙箱无法隔离学生代码（{reason}）。\n"
            "学生的代码会以你的用户身份运行，能读到参考答案、隐藏测试和成绩册。\n"
            "解决办法：安装 bubblewrap（Debian/Ubuntu：sudo apt-get install bubblewrap），并允许非特权用户命名空间"
            "（sysctl kernel.unprivileged_userns_clone=1、user.max_user_namespaces>0；容器里要放开 user namespace）。\n"
            f"如果你清楚风险、仍要在没有隔离的情况下评分：加 {ALLOW_FLAG}（或设置环境变量 {ALLOW_ENV}=1）。\n"
            f"Grading stopped before grading anyone: the grading sandbox cannot isolate student code ({reason}).\n"
            "Student code would run as your user and could read the reference solution, the hidden tests and "
            "the gradebook.\nFix: install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap) and allow "
            "unprivileged user namespaces (kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0; "
            "in a container, allow user namespaces).\n"
            f"To grade without isolation anyway, accepting the risk: pass {ALLOW_FLAG} "
            f"(or set {ALLOW_ENV}=1).")


def unisolated_allowed() -> bool:
    return os.environ.get(ALLOW_ENV, "") not in ("", "0")


def allow_unisolated() -> None:
    """What --allow-unisolated does: every sandbox this process (and its workers) starts accepts the risk."""
    os.environ[ALLOW_ENV] = "1"


def require_isolation() -> bool:
    """Before grading anyone: True when namespaces work; False when the instructor accepted grading
    without them (a warning is printed); IsolationUnavailable otherwise."""
    _strace()
    problem = isolation_problem()
    if problem is None:
        return True
    if not unisolated_allowed():
        raise IsolationUnavailable(isolation_refusal(problem))
    print(f"警告：评分沙箱没有隔离（{problem}），按 {ALLOW_FLAG} 的要求照常评分。/ WARNING: grading without "
          f"isolation ({problem}), as {ALLOW_FLAG} asks.", file=sys.stderr)
    return False


def _strace() -> str:
    found = shutil.which("strace")
    if found is None:
        raise SandboxError("评分需要 strace（Debian/Ubuntu：sudo apt-get install strace），它从沙箱外面记录文件操作。\n"
                           "Grading needs strace (Debian/Ubuntu: sudo apt-get install strace): it records the "
                           "sandbox's file operations from outside.")
    return found


def _bwrap() -> str | None:
    return shutil.which(os.environ.get(BWRAP_ENV) or "bwrap")


NESTED_PROBE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000 | 0x20000000 | 0x40000000 | 0x00020000 | 0x08000000 | 0x04000000):
    raise SystemExit("nested unshare: " + os.strerror(ctypes.get_errno()))
pid = os.fork()
if pid == 0:
    os._exit(0 if os.getpid() == 1 else 3)
raise SystemExit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def isolation_problem() -> str | None:
    """Why bubblewrap cannot make this sandbox's namespaces here, or None when it can."""
    if SYS_CLONE is None:
        return f"不知道 {os.uname().machine} 上 clone(2) 的系统调用号 / clone(2)'s number on {os.uname().machine} is unknown"
    if os.geteuid() == 0 and controller_root() is None:
        return ("以 root 评分时进程数上限要靠 pids cgroup（root 不受 RLIMIT_NPROC 限制），这里找不到可写的 pids cgroup；"
                "请改用普通用户评分，或在容器里挂载可写的 cgroup / as root the process limit needs a writable "
                "pids cgroup (RLIMIT_NPROC does not bind root): grade as an ordinary user, or mount one")
    bwrap = _bwrap()
    if bwrap is None:
        return f"找不到 bubblewrap（{os.environ.get(BWRAP_ENV) or 'bwrap'}）/ bubblewrap not found"
    try:
        probe = subprocess.run([bwrap, *_bwrap_options(), sys.executable, "-c", NESTED_PROBE],
                               capture_output=True, text=True, timeout=60, env=_sandbox_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap 无法运行 / bubblewrap does not run: {exc}"
    if probe.returncode != 0:
        return f"bubblewrap 无法创建命名空间 / bubblewrap cannot create namespaces: {probe.stderr.strip()[-300:]}"
    return None


def _bwrap_options(socket_dir: str | None = None, work_size: int = 0) -> list:
    """bubblewrap's view of the machine: system libraries, the interpreter, course/ and the driver only."""
    options = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
               "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "sandbox", "--tmpfs", "/tmp"]
    for path in ("/usr", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
        if os.path.exists(path):
            options += ["--ro-bind", path, path]
    for path in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
    for prefix in python_prefixes():
        options += ["--ro-bind", prefix, prefix]
    for prefix in python_prefixes():  # a venv made inside the course folder shows only itself
        if str(ROOT).startswith(prefix + "/") or str(ROOT) == prefix:
            options += ["--tmpfs", str(ROOT)]
    options += ["--ro-bind", str(ROOT / "course"), f"{APP_INSIDE}/course",
                "--ro-bind", str(ROOT / "autograder" / "__init__.py"), f"{APP_INSIDE}/autograder/__init__.py",
                "--ro-bind", str(ROOT / "autograder" / "child.py"), f"{APP_INSIDE}/autograder/child.py",
                "--ro-bind", str(ROOT / "autograder" / "protocol.py"), f"{APP_INSIDE}/autograder/protocol.py",
                "--proc", "/proc", "--dev", "/dev", "--dir", STEP_TMP_INSIDE]
    if work_size:
        options += ["--size", str(work_size), "--tmpfs", WORK_INSIDE]
    if socket_dir:
        options += ["--ro-bind", socket_dir, SOCKET_DIR_INSIDE]
    return options + ["--chdir", "/tmp", "--"]


def python_prefixes() -> list:
    """The interpreter's and the venv's folders, outside /usr (bound read-only at the same path)."""
    bound = []
    for prefix in sorted({sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix}):
        if prefix != "/usr" and not prefix.startswith("/usr/") and not any(prefix.startswith(p + "/") for p in bound):
            bound.append(prefix)
    return bound


def _sandbox_env(app: str = APP_INSIDE) -> dict:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "COURSE_OFFLINE": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": app}


class Folder:
    """A working folder seen from the grader, through a directory fd opened once: nothing in it is followed
    out of it (a symlink the student's code leaves there never makes the grader read or write elsewhere)."""

    def __init__(self, host_path: Path, inside: str):
        self.inside = inside
        host_path.mkdir()
        self.fd = os.open(host_path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self.host_path = host_path

    @staticmethod
    def parts(relative: str) -> list:
        parts = [p for p in str(relative).split("/") if p not in ("", ".")]
        if not parts or ".." in parts:
            raise ValueError(f"不在工作目录里的路径：{relative}")
        return parts

    def relative(self, inside_path: str) -> str:
        """The path relative to the folder, for a path as the student's code names it (ValueError outside)."""
        normal = os.path.normpath(os.path.join(self.inside, os.fspath(inside_path)))
        if not normal.startswith(self.inside + "/"):
            raise ValueError("评分时只能在工作目录里读写检查点")
        return normal[len(self.inside) + 1:]

    def _directory(self, parts: list, create: bool = False) -> int:
        fd = os.dup(self.fd)
        try:
            for part in parts:
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = inner
            return fd
        except BaseException:
            os.close(fd)
            raise

    def make_parents(self, relative: str):
        os.close(self._directory(self.parts(relative)[:-1], create=True))

    def read_bytes(self, relative: str) -> bytes | None:
        """The file's bytes; None when there is no regular file there (missing, a symlink, a folder)."""
        try:
            parts = self.parts(relative)
            folder = self._directory(parts[:-1])
        except (OSError, ValueError):
            return None
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except OSError:
            return None
        finally:
            os.close(folder)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return file.read(MAX_REQUEST_BYTES)

    def write_atomically(self, relative: str, data: bytes):
        parts = self.parts(relative)
        folder = self._directory(parts[:-1], create=True)
        temporary = f".grader-{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.replace(temporary, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:  # a full working folder, say: the student's listing must not show the grader's file
            try:
                os.unlink(temporary, dir_fd=folder)
            except OSError:
                pass
            raise
        finally:
            os.close(folder)

    def regular_files(self) -> list:
        """Sorted relative paths of the regular files under the folder (symlinks are not followed)."""
        found = []

        def walk(fd, prefix):
            with os.scandir(fd) as entries:
                for entry in entries:
                    if len(found) >= MAX_FILES_LISTED:
                        return
                    if entry.is_file(follow_symlinks=False):
                        found.append(prefix + entry.name)
                    elif entry.is_dir(follow_symlinks=False):
                        try:
                            inner = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                        except OSError:
                            continue
                        try:
                            walk(inner, prefix + entry.name + "/")
                        finally:
                            os.close(inner)

        walk(self.fd, "")  # scandir works on its own copy of the descriptor
        return sorted(found)

    def remove(self):
        os.close(self.fd)
        shutil.rmtree(self.host_path, ignore_errors=True)


class _Zygote:
    """The sandbox: strace, around bubblewrap, around the forking process; one job at a time."""

    def __init__(self, sandbox):
        self.sandbox = sandbox
        self.process = None
        self.trace = None
        self.starts = 0
        self._buffer = b""

    def _start(self):
        sandbox = self.sandbox
        self.starts += 1
        log = sandbox.base / f"trace-{self.starts}.log"
        self.trace = fs_trace.TraceLog(log)
        sandbox.zygote_pid = None
        if sandbox.isolated:
            command = [sandbox.bwrap, *_bwrap_options(str(sandbox.socket_dir), sandbox.limits.work_size)]
            socket_path, env = f"{SOCKET_DIR_INSIDE}/{SOCKET_NAME}", _sandbox_env()
        else:
            command, socket_path, env = [], str(sandbox.socket_path), _sandbox_env(str(ROOT))
        command = [*fs_trace.strace_command(sandbox.strace, str(log)), *command,
                   sys.executable, "-m", "autograder.child", socket_path,
                   "isolated" if sandbox.isolated else "unisolated"]
        if sandbox.pids is not None:
            command = sandbox.pids.wrap(command)
        with (sandbox.base / "zygote.log").open("ab") as errors:
            self.process = subprocess.Popen(command, cwd="/", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=errors, start_new_session=True)
        self._buffer = b""
        ready = self._read(time.monotonic() + 120)
        if ready != {"ready": True} or sandbox.zygote_pid is None:
            self.close()
            log = (sandbox.base / "zygote.log").read_text(errors="replace")[-3000:]
            raise SandboxError(f"评分沙箱（autograder.child）没能启动：\n{log}")
        self.trace.read_available()  # bubblewrap's set-up and the zygote's imports: no step's doing
        if sandbox.isolated:
            sandbox.host_work = Path(f"/proc/{sandbox.zygote_pid}/root{WORK_INSIDE}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _read(self, deadline, on_wait=None):
        """The next JSON line from the zygote, or None if it died; `on_wait()` runs while waiting."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            if on_wait:
                on_wait()
            if time.monotonic() > deadline:
                return None
            ready, _, _ = select.select([fd], [], [], 0.02)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def ensure_started(self, rotate: bool = False):
        if rotate and self.alive() and self.trace.offset > MAX_TRACE_BYTES:  # between scenarios: a fresh log
            self.close()
        if not self.alive():
            self._start()

    def run(self, job: dict, on_wait) -> tuple:
        """(exit status, strace lines of the step) for one job: {"exit_code"}, {"signal"} or {"zygote_died"}."""
        self.ensure_started()
        try:
            self.process.stdin.write(json.dumps(job, ensure_ascii=False).encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.close()
            return {"zygote_died": True}, []
        started = self._read(time.monotonic() + 60)
        finished = self._read(float("inf"), on_wait) if started is not None else None
        if finished is None:  # the zygote is gone, and with it the namespace of every step
            lines = self.trace.read_available()
            self.close()
            return {"zygote_died": True}, lines
        lines, complete = self.trace.read_until(f"{MARK_PREFIX}{job['id']}-end", self.sandbox.zygote_pid,
                                                time.monotonic() + TRACE_TIMEOUT)
        if not complete:
            self.close()
            raise SandboxError("strace 的记录不完整：评分器没能看到这一步的文件操作 / strace log incomplete")
        return finished["status"], lines

    def close(self):
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                stream.close()
            self.process = None
            Path(self.trace.path).unlink(missing_ok=True)


class _ScenarioRun:
    """The grader's side of one scenario while its steps run."""

    def __init__(self, sandbox, scenario: Scenario, folder: Folder, trouble: SubmissionTrouble):
        self.sandbox, self.scenario, self.folder, self.trouble, self.mail = sandbox, scenario, folder, trouble, None
        self.lock = threading.RLock()
        self.phase = BEFORE
        self.phase_started = time.monotonic()
        self.job_steps = ()  # the steps the running process was started for
        self.steps = [None] * len(scenario.steps)
        self.cells = {}
        self.model_calls, self.tool_calls, self.standin_calls, self.deliveries = [], [], [], []
        self.delivered_ids, self.lookups = [], []
        self.fs_events = []  # what strace saw, step by step
        self.files_by_step = {}  # step index -> regular files in the folder after it
        self.sequence = 0  # orders model calls and tool calls against each other
        self.step_pid = None  # the step's process, as the kernel named it to the socket
        self.step_pidfd = None
        self.failure = None  # the driver's own traceback, if it failed
        self.crashed = False  # the grader has killed the current step on purpose
        self.crash_done = False
        self.sending_before = False  # the grader itself is delivering scenario.emails_before
        self.received = 0  # bytes the steps have sent

    def on_delivery(self, message):
        with self.lock:
            self.deliveries.append(str(BEFORE) if self.sending_before else str(self.phase))
            self.delivered_ids.append(str(message["Message-ID"]))

    def start_job(self, indices: list):
        with self.lock:
            self.phase, self.phase_started, self.crashed, self.job_steps = BEFORE, time.monotonic(), False, indices
            self.step_pid, self.step_pidfd, self.failure = None, None, None

    def end_job(self):
        with self.lock:
            if self.step_pidfd is not None:
                os.close(self.step_pidfd)
            self.step_pid, self.step_pidfd, self.job_steps = None, None, ()

    # -- what the step's process says --

    def hello(self, pid: int):
        """The first connection of a step's process, before any student code: the kernel names its pid."""
        with self.lock:
            if self.step_pid is not None or not self.job_steps:
                return
            self.step_pid = pid
            self.phase, self.phase_started = DEFINING, time.monotonic()
            try:
                self.step_pidfd = os.pidfd_open(pid)
            except OSError:
                self.step_pidfd = None

    def kill_step(self):
        with self.lock:
            pid, pidfd = self.step_pid, self.step_pidfd
        if pid is None:  # not even connected yet: only the whole sandbox can be stopped
            self.sandbox.zygote.close()
            return
        try:
            if self.sandbox.isolated and pidfd is not None:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)  # pid 1 of the step's namespace: it all ends
            else:
                os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass

    def event(self, payload: dict) -> dict:
        with self.lock:
            kind = payload.get("kind")
            cells = payload.get("cells")
            for cell in cells if isinstance(cells, list) else ():
                if isinstance(cell, dict) and cell.get("status") in (CellStatus.OK, CellStatus.RAISED):
                    self.cells[str(cell.get("name"))] = {"status": cell["status"], "error": cell.get("error")}
            if kind == EventKind.CELL:
                self.phase, self.phase_started = Phase(PhaseKind.CELL, cell=str(payload.get("name"))), time.monotonic()
            elif kind == EventKind.STEP and payload.get("index") in self.job_steps:
                index = payload["index"]
                running = Phase(PhaseKind.STEP, step=index)
                if payload.get("status") == EventStatus.START and self.phase != running and self.steps[index] is None:
                    self.phase, self.phase_started = running, time.monotonic()
                elif (self.phase == running and self.steps[index] is None
                      and isinstance(payload.get("result"), dict)):
                    self.steps[index] = _checked_result(payload["result"])
        return {}

    def current_step(self):
        with self.lock:
            return self.phase.step

    def trace_position(self) -> int:
        """Where strace's log ends now: the step's file-system calls so far end at or before it (fs_trace "at")."""
        return self.sandbox.zygote.trace.position()

    def _snapshot(self):
        if not self.scenario.watch:
            return None
        data = self.folder.read_bytes(self.scenario.watch)
        if data is None:
            return {"missing": True}
        try:
            return {"state": json.loads(data.decode("utf-8"))}
        except ValueError:
            return {"invalid": True}

    # -- the model --

    def model_call(self, raw: bytes, route: ModelRoute):
        step = self.current_step()
        if step is None:
            return 400, _api_error("评分时，定义代码的阶段不能调用模型")
        snapshot, at = self._snapshot(), self.trace_position()
        try:
            body = json.loads(raw)
            messages = body.get("messages")
        except (ValueError, AttributeError):
            return 400, _api_error("请求不是合法的 JSON")
        if self.scenario.model == "endless":
            status, reply = self._endless_reply(messages)
        else:
            status, reply, _ = course.model.answer(body)
        with self.lock:
            self.sequence += 1
            self.model_calls.append({"step": step, "client": "given" if route is ModelRoute.GIVEN else "make_client",
                                     "messages": messages, "status": status, "reply": reply,
                                     "snapshot": snapshot, "seq": self.sequence, "at": at})
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

    def run_tool(self, name, tool_input, key=None) -> str:
        """Run a tool for real, here, with the idempotency key it was given (a string, or none);
        read-only output carries a marker no student can guess."""
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            return f"错误：工具调用的参数不对（name={name!r:.40}）"
        if self.scenario.service_down and name == "send_email":
            return "错误：邮件没有发出去：[Errno 111] Connection refused"
        with self.sandbox.tool_lock:
            output = course.tools.execute_tool(name, tool_input, idempotency_key=key if isinstance(key, str) else None)
        if name in READ_ONLY_TOOL_NAMES:
            output += f"\n\n〔评分器标记 {secrets.token_hex(8)}〕"
        return output

    def tool_call(self, payload: dict):
        step = self.current_step()
        if step is None:
            return {"output": "错误：评分时，定义代码的阶段不能调用工具"}
        name, tool_input, key = payload.get("name"), payload.get("input"), payload.get("key")
        snapshot, ledgers, at = self._snapshot(), self._ledger_texts(), self.trace_position()
        with self.lock:
            self.sequence += 1
            record = {"step": step, "name": name, "input": tool_input, "key": key, "output": None,
                      "snapshot": snapshot, "ledgers": ledgers, "seq": self.sequence, "at": at}
            self.tool_calls.append(record)
            number = len(self.tool_calls)
        crash = self.scenario.crash or {}
        if (crash.get("before_tool_call") == number or crash.get("before_tool") == name) and not self.crash_done:
            self.crash_now()
            return None
        record["output"] = self.run_tool(name, tool_input, key)
        if crash.get("after_tool") == name and not self.crash_done:
            self.crash_now()
            return None
        return {"output": record["output"]}

    def lookup(self, payload: dict) -> dict:
        """lookup_effect(name, key): asked of the grader's own mail server, or unanswered when it is down."""
        step = self.current_step()
        name, key = payload.get("name"), payload.get("key")
        record = {"step": step, "name": name, "key": key, "answer": None, "unavailable": True,
                  "at": self.trace_position()}
        with self.lock:
            self.sequence += 1
            record["seq"] = self.sequence
            self.lookups.append(record)
        if step is None:
            return {"unavailable": "评分时，定义代码的阶段不能查询服务"}
        if self.scenario.service_down:
            return {"unavailable": "邮件服务器无法回答：[Errno 111] Connection refused"}
        if not isinstance(name, str) or not isinstance(key, str):
            return {"unavailable": f"查询的参数不对（name={name!r:.40}，key={key!r:.40}）"}
        try:
            with self.sandbox.tool_lock:
                record["answer"] = course.tools.lookup_effect(name, key)
        except ServiceUnavailable as exc:
            return {"unavailable": str(exc)}
        record["unavailable"] = False
        return {"output": record["answer"]}

    def _ledger_texts(self) -> dict:
        texts = {}
        for relative in self.scenario.ledgers:
            data = self.folder.read_bytes(relative)
            texts[relative] = None if data is None else data.decode("utf-8", errors="replace")
        return texts

    def crash_now(self):
        with self.lock:
            self.crashed = self.crash_done = True
        self.kill_step()

    # -- the grader's own save / load / reconcile --

    def standin(self, name: str, payload: dict) -> dict:
        """Only in a scenario that names the stand-in: elsewhere a student's code cannot borrow it."""
        if name not in self.scenario.standins:
            return {"error": f"没有名为 {name} 的替身函数"}
        reference = self.sandbox.reference
        record = {"step": self.current_step(), "name": name, "at": self.trace_position()}
        with self.lock:
            self.sequence += 1
            record["seq"] = self.sequence
            self.standin_calls.append(record)
        try:
            if name == "reconcile":
                with self.sandbox.tool_lock:
                    reference.execute_tool = self._standin_tool
                    return {"cp": reference.reconcile(payload["cp"])}
            relative = self.folder.relative(payload["path"])
            if name == "save_checkpoint":
                with tempfile.TemporaryDirectory(dir=self.sandbox.base) as private:
                    saved = Path(private) / "checkpoint.json"
                    reference.save_checkpoint(payload["state"], saved)
                    self.folder.write_atomically(relative, saved.read_bytes())
                record["state"] = payload["state"]
                return {}
            if name == "load_checkpoint":
                data = self.folder.read_bytes(relative)
                if data is None:
                    return {"state": None}
                with tempfile.TemporaryDirectory(dir=self.sandbox.base) as private:
                    copy = Path(private) / Path(relative).name
                    copy.write_bytes(data)
                    return {"state": reference.load_checkpoint(copy)}
        except Exception as exc:  # the student's data made the reference fail: tell the student's code
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {"error": f"没有名为 {name} 的替身函数"}

    def _standin_tool(self, name, tool_input):
        self.standin_calls.append({"step": self.current_step(), "name": "execute_tool", "tool": name})
        return self.run_tool(name, tool_input)

    # -- deadlines --

    def step_limit(self, index: int) -> float:
        step = self.scenario.steps[index]
        limit = step.get("timeout", self.scenario.step_timeout)
        if step["name"] in self.trouble.hung:  # it hung before: do not wait as long again
            limit = min(limit, step.get("quick_timeout", QUICK_TIMEOUT))
        return limit

    def overdue(self) -> bool:
        with self.lock:
            phase, since = self.phase, self.phase_started
        if phase.kind is PhaseKind.BEFORE:
            limit = STARTUP_TIMEOUT
        elif phase.kind is PhaseKind.STEP:
            limit = self.step_limit(phase.step)
        else:
            limit = CELL_TIMEOUT
        return time.monotonic() - since > limit


def _checked_result(result: dict) -> dict:
    """A step's report, as the grader accepts it: a known status and only the fields that status has."""
    status = result.get("status")
    if status not in REPORTED_STATUSES:
        return {"status": StepStatus.DIED, "detail": "进程报告了评分器不认识的结果"}
    status = StepStatus(status)
    checked = {"status": status}
    if status is StepStatus.RETURNED:
        checked["value"] = result.get("value")
    elif status is StepStatus.RAISED:
        error = result.get("error") if isinstance(result.get("error"), dict) else {}
        checked["error"] = {"type": str(error.get("type", "")), "value_error": error.get("value_error") is True,
                            "message": str(error.get("message", ""))}
    elif status is StepStatus.UNSUPPORTED:
        checked["detail"] = str(result.get("detail", ""))
    if isinstance(result.get("seconds"), (int, float)):
        checked["seconds"] = float(result["seconds"])
    if isinstance(result.get("args_after"), list):
        checked["args_after"] = result["args_after"]
    if "args_after_problem" in result:
        checked["args_after_problem"] = str(result["args_after_problem"])
    return checked


def _api_error(message: str) -> dict:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


class _Handler(socketserver.StreamRequestHandler):
    """One connection from inside the sandbox: HTTP/1.1 requests with a Content-Length body, answered in order.

    That is all the SDK and the step's poster send, so only that is read: a request line, header lines and the
    body, within fixed limits; anything else is answered with an error and the connection closed.
    (http.server parsed every request's headers with the email package: a fifth of the grader's own CPU.)
    """

    path = ""
    close_connection = False

    def setup(self):
        super().setup()
        self.server.sandbox.connections.opened()

    def handle(self):
        try:
            while not self.close_connection:
                self._one_request()
        except ConnectionResetError:  # after what it sent was read: the process left replies it did not wait for
            pass

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.sandbox.connections.closed()

    def _one_request(self):
        self.close_connection = True
        line = self.rfile.readline(MAX_HEADER_LINE + 1)
        if not line:
            return
        parts = line.split()
        if len(line) > MAX_HEADER_LINE or len(parts) != 3 or parts[2] not in (b"HTTP/1.1", b"HTTP/1.0"):
            return self._reply(400, {"error": "bad request line"})
        headers = {}
        for _ in range(MAX_HEADERS + 1):
            line = self.rfile.readline(MAX_HEADER_LINE + 1)
            if line in (b"\r\n", b"\n", b""):
                break
            name, colon, value = line.partition(b":")
            if len(line) > MAX_HEADER_LINE or not colon:
                return self._reply(400, {"error": "bad header"})
            headers[name.strip().lower()] = value.strip()
        else:
            return self._reply(400, {"error": "too many headers"})
        length = headers.get(b"content-length", b"0")
        if parts[0] != b"POST" or b"transfer-encoding" in headers or not length.isdigit():
            return self._reply(400, {"error": "only POST with a Content-Length"})
        self.close_connection = parts[2] == b"HTTP/1.0" or headers.get(b"connection", b"").lower() == b"close"
        self.path = parts[1].decode("latin-1")
        self.do_POST(int(length))

    def _peer_pid(self) -> int:
        pid, _, _ = struct.unpack("3i", self.connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                   struct.calcsize("3i")))
        return pid

    def do_POST(self, length: int):
        sandbox = self.server.sandbox
        parts = self.path.split("?", 1)[0].split("/", 3)  # "", "s", token, rest
        run = sandbox.runs.get(parts[2]) if len(parts) == 4 and parts[1] == "s" else None
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True
            return self._reply(413, {"error": "too much data"})
        if run is None:
            self.rfile.read(length)
            if parts[1:] == ["s", ZYGOTE_TOKEN, Endpoint.HELLO]:
                sandbox.zygote_hello(self._peer_pid())
                self.close_connection = True  # so that, between steps, no connection is open
                return self._reply(200, {})
            return self._reply(404, {"error": "unknown"})
        with run.lock:
            run.received += length
            if run.received > MAX_SCENARIO_BYTES:
                self.close_connection = True
                return self._reply(413, {"error": "too much data"})
        raw = self.rfile.read(length)
        endpoint, _, detail = parts[3].partition("/")
        if endpoint in set(ModelRoute) and detail == "v1/messages":
            status, body = run.model_call(raw, ModelRoute(endpoint))
            return self._reply(status, body)
        try:
            payload = json.loads(raw)
        except ValueError:
            return self._reply(400, {"error": "bad json"})
        if not isinstance(payload, dict):
            return self._reply(400, {"error": "bad json"})
        if endpoint == Endpoint.HELLO:
            run.hello(self._peer_pid())
            return self._reply(200, {})
        if endpoint == Endpoint.EVENT:
            return self._reply(200, run.event(payload))
        if endpoint == Endpoint.FAILURE:
            run.failure = str(payload.get("traceback"))[-4000:]
            return self._reply(200, {})
        if endpoint == Endpoint.TOOL:
            reply = run.tool_call(payload)
            if reply is None:  # the step was killed on purpose; nobody is listening
                self.close_connection = True
                return
            return self._reply(200, reply)
        if endpoint == Endpoint.LOOKUP:
            return self._reply(200, run.lookup(payload))
        if endpoint == Endpoint.STANDIN:
            return self._reply(200, run.standin(detail, payload))
        return self._reply(404, {"error": "unknown"})

    def _reply(self, status: int, body: dict):
        data = json.dumps(body, ensure_ascii=False).encode()
        closing = "Connection: close\r\n" if self.close_connection else ""
        # every status sent is a standard one (the grader's own, or course.model's 200 and 400)
        head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nServer: grader\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nrequest-id: req_grader\r\n"
                f"{closing}\r\n")
        try:
            self.wfile.write(head.encode("ascii") + data)
        except OSError:
            pass


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _Connections:
    """How many connections the server is still reading: after a step's processes are gone, what they sent
    (some of it without waiting for the reply) is all read once this is back to zero."""

    def __init__(self):
        self.count = 0
        self.changed = threading.Condition()

    def opened(self):
        with self.changed:
            self.count += 1

    def closed(self):
        with self.changed:
            self.count -= 1
            self.changed.notify_all()

    def wait_until_read(self, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.count == 0, timeout)


class Sandbox:
    """The sandboxed zygote, strace and the grader's endpoints, for one grading session."""

    def __init__(self, limits: Limits | None = None, lesson: Lesson = DEFAULT):
        self.limits = limits or Limits()
        self.strace = _strace()
        self.isolated = require_isolation()
        self.bwrap = _bwrap()
        self.reference = load_reference(lesson)  # the grader's stand-ins and the hidden tests' oracle
        self.tool_lock = threading.RLock()
        # RLIMIT_NPROC does not bind root: a root grader's sandbox gets a pids cgroup instead
        self.pids = PidsCgroup(self.limits.cgroup_tasks) if self.isolated and os.geteuid() == 0 else None
        _remove_abandoned()
        self.base = Path(tempfile.mkdtemp(prefix=f"grader-{os.getpid()}-", dir=memory_tmp_dir()))
        self.socket_dir = self.base / "socket"
        self.socket_dir.mkdir()
        self.socket_path = self.socket_dir / SOCKET_NAME
        self.host_work = self.base / "work"  # without isolation; with it, the sandbox's own /work
        self.host_work.mkdir()
        self.zygote_pid = None
        self.runs = {}
        self.connections = _Connections()
        self._server = _Server(str(self.socket_path), _Handler)
        self._server.sandbox = self
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.zygote = _Zygote(self)

    def zygote_hello(self, pid: int):
        if self.zygote_pid is None:
            self.zygote_pid = pid

    def run(self, scenario: Scenario, cells: list, trouble: SubmissionTrouble) -> Outcome:
        """Run every step of `scenario`, each in its own process, after defining `cells` minus the bad ones."""
        self.zygote.ensure_started(rotate=True)
        name = secrets.token_hex(6)
        inside = f"{WORK_INSIDE}/{name}" if self.isolated else str(self.host_work / name)
        folder = Folder(self.host_work / name, inside)
        for relative, content in scenario.files.items():  # bytes for a file that is not UTF-8 on purpose
            folder.write_atomically(relative, content if isinstance(content, bytes) else content.encode("utf-8"))
        token = secrets.token_urlsafe(16)
        run = _ScenarioRun(self, scenario, folder, trouble)
        try:
            with MailServer(on_delivery=run.on_delivery) as mail:
                run.mail = mail
                run.sending_before = True
                for email in scenario.emails_before:
                    tool_input, key = (email, None) if isinstance(email, dict) else email
                    run.run_tool("send_email", dict(tool_input), key)
                run.sending_before = False
                self.runs[token] = run
                self._steps(run, scenario, cells, trouble, token)
                files_after = {}
                for relative in {*scenario.files, *scenario.read_after, *scenario.ledgers,
                                 *([scenario.watch] if scenario.watch else [])}:
                    data = folder.read_bytes(relative)  # a file cut off mid-character is still there, and broken
                    files_after[relative] = None if data is None else data.decode("utf-8", errors="replace")
                listing = folder.regular_files()
        finally:
            self.runs.pop(token, None)
            folder.remove()
        steps = [s if s is not None else {"status": StepStatus.NOT_RUN} for s in run.steps]
        for step, asked in zip(steps, scenario.steps):
            if step["status"] is StepStatus.RAISED and not asked.get("file_size_limit"):  # not a full disk on purpose
                trouble.kinds.update(kinds_of_error(step["error"]))
        files_by_step = []
        for index in range(len(scenario.steps)):  # a step that did not run left the folder as it was
            files_by_step.append(run.files_by_step.get(index, files_by_step[-1] if files_by_step else listing))
        return Outcome(scenario, steps, run.model_calls, run.tool_calls, run.standin_calls, run.deliveries,
                       run.delivered_ids, run.lookups, files_after, run.cells, inside, run.fs_events, files_by_step)

    def _steps(self, run: _ScenarioRun, scenario: Scenario, cells: list, trouble: SubmissionTrouble, token: str):
        index, attempts = 0, 0
        while index < len(scenario.steps) and attempts < len(cells) + 2 * len(scenario.steps) + 3:
            attempts += 1
            batch = [index]
            while (batch[-1] + 1 < len(scenario.steps) and scenario.steps[index].get("batch") is not None
                   and scenario.steps[batch[-1] + 1].get("batch") == scenario.steps[index].get("batch")):
                batch.append(batch[-1] + 1)
            for step in (scenario.steps[i] for i in batch):
                for value in [*step.get("args", []), *step.get("kwargs", {}).values()]:
                    if isinstance(value, dict) and "$path" in value:
                        run.folder.make_parents(value["$path"])
            job: Job = {"id": secrets.token_hex(8), "isolated": self.isolated, "token": token,
                        "socket": f"{SOCKET_DIR_INSIDE}/{SOCKET_NAME}" if self.isolated else str(self.socket_path),
                        "workdir": run.folder.inside, "env": self._step_env(run), "limits": vars(self.limits),
                        "cells": [c for c in cells if c["name"] not in trouble.bad_cells],
                        "report_cells": trouble.report_cells, "standins": list(scenario.standins),
                        "steps": [[i, scenario.steps[i]] for i in batch],
                        "fresh_tmp": STEP_TMP_INSIDE,
                        "under_tmp": [p for p in python_prefixes() if p.startswith("/tmp/")]}
            run.start_job(batch)
            timed_out = []

            def on_wait():
                if not timed_out and run.overdue():
                    timed_out.append(True)
                    run.kill_step()

            status, lines = self.zygote.run(job, on_wait)
            if self.pids is not None and self.pids.limit_was_hit():
                trouble.kinds["processes"] += 1
            if not self.connections.wait_until_read(TRACE_TIMEOUT):
                raise SandboxError("评分器没能读完这一步的进程发来的消息 / a step's messages were not all read")
            with run.lock:
                phase, crashed, failure = run.phase, run.crashed, run.failure
            run.end_job()
            # strace cannot tell the calls of one process apart: what it saw counts for the first of them
            run.fs_events += fs_trace.events(lines, index, run.folder.inside, skip_pid=self.zygote_pid)[
                :MAX_EVENTS_PER_STEP]
            listing = run.folder.regular_files()
            run.files_by_step.update((i, listing) for i in batch)
            if failure is not None or phase == BEFORE:  # no student code has run yet: the grader is broken
                how = "超时" if timed_out else _how_it_died(status)
                raise SandboxError(f"评分沙箱的子进程没能启动（{how}）\n{failure or ''}")
            index = next((i for i in batch if run.steps[i] is None), batch[-1] + 1)
            if index > batch[-1]:
                continue
            step = scenario.steps[index]
            if phase == DEFINING:
                if trouble.report_cells:  # reported before each cell, and died before the first report
                    raise SandboxError(f"评分沙箱的子进程在定义代码之前退出了（{_how_it_died(status)}）")
                trouble.report_cells = True  # once more, learning which cell it is
                continue
            if not crashed:  # the grader's own crash is no trouble of the student's
                trouble.kinds[_trouble_kind(status, bool(timed_out))] += 1
            if phase.kind is PhaseKind.CELL:
                trouble.bad_cells.add(phase.cell)  # defining this cell hangs or kills the process: leave it out
                run.cells[phase.cell] = {"status": CellStatus.TIMEOUT if timed_out else CellStatus.DIED,
                                       "error": {"type": "", "message": _how_it_died(status)}}
                continue
            if crashed:
                run.steps[index] = {"status": StepStatus.CRASHED_BY_GRADER}
            elif timed_out:
                run.steps[index] = {"status": StepStatus.TIMEOUT, "detail": f"{run.step_limit(index):g} 秒"}
                trouble.hung.add(step["name"])
            else:
                run.steps[index] = {"status": StepStatus.DIED, "detail": _how_it_died(status)}
            index += 1
            if not (crashed or scenario.independent_steps):
                return

    def _step_env(self, run: _ScenarioRun) -> dict:
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": run.folder.inside, "COURSE_OFFLINE": "1",
                "COURSE_MAILDIR": f"{run.folder.inside}/maildir", "PYTHONDONTWRITEBYTECODE": "1"}

    def close(self):
        self.zygote.close()
        if self.pids is not None:
            self.pids.close()
        self._server.shutdown()
        self._server.server_close()
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _remove_abandoned():
    """Scratch folders of this user's graders that were killed (their pid is gone)."""
    for folder in Path(memory_tmp_dir() or tempfile.gettempdir()).glob("grader-*-*"):
        try:
            if folder.stat().st_uid == os.geteuid():
                os.kill(int(folder.name.split("-")[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (ValueError, OSError):
            continue


def _trouble_kind(status: dict, timed_out: bool) -> str:
    """What a step or definition that did not report back ran into (autograder.trouble.KINDS)."""
    if timed_out or status.get("signal") == signal.SIGXCPU:
        return "time"
    return "disk" if status.get("signal") == signal.SIGXFSZ else "died"


def _how_it_died(status: dict) -> str:
    if status.get("zygote_died"):
        return "评分沙箱本身退出了"
    if "signal" in status:
        name = {signal.SIGKILL: "SIGKILL", signal.SIGXCPU: "SIGXCPU（CPU 时间用完）", signal.SIGSEGV: "SIGSEGV",
                signal.SIGXFSZ: "SIGXFSZ（文件太大）"}.get(status["signal"], f"信号 {status['signal']}")
        return f"进程被 {name} 终止"
    return f"进程自己退出了（退出码 {status.get('exit_code')}）"
