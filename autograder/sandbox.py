"""Run a student's code where it cannot reach the grader, and watch what it does from outside.

A `Sandbox` owns, for a whole grading session (one student after another), these parts:

- the zygote (autograder.zygote driving autograder.child): a process that has imported the
  course runtime, inside bubblewrap (autograder.isolation: its own user, pid, network, mount,
  ipc and uts namespaces, uid 65534 (1000 in each step's own), read-only binds of only the system libraries, the
  interpreter and its packages, course/ and the driver file; a private /tmp and a size-limited
  /work). No source/, autograder/ hidden tests, tests/, submitted/, feedback/, gradebook or home
  folder is there to be read. For each step of a scenario (or batch of steps) it clones a process
  into fresh namespaces again, so whatever a step starts ends with it;
- strace around the whole sandbox: the grader's own record of what the file system saw
  (autograder.fs_trace), whatever the student's code does to os, json or the builtins;
- an HTTP server on a Unix socket (autograder.endpoint), the door out of the sandbox: every
  model call (answered by the course's scripted model, or by an endless one), every tool call (run
  here, against a mail server that lives here and counts deliveries by Message-ID, so by
  idempotency key), every lookup by key (lesson 4: the grader asks that server, or answers that it
  is down), the grader's stand-in save/load/reconcile (only in the scenarios that name them), and
  the steps' progress reports, each recorded by the scenario's run (autograder.scenario_run);
- the hand-off socket beside it: each step's SMTP port, served here (autograder.mail_door), so an email
  sent any way at all reaches the same mail server;
- each scenario's working folder (autograder.folder), read without following what the student left.

`Sandbox.run(scenario, cells, trouble)` returns an `Outcome` (autograder.scenario): what each step
returned or raised (as its process reported it), and what the grader saw for itself: model calls,
tool calls, lookups, emails delivered, file-system events in order, the files in the working
folder after each step, the checkpoint file at each model and tool call. A step that hangs is
killed when its time is up; a definition cell that hangs or kills the process is left out from
then on, and the step runs again without it.
"""
import binascii
import marshal
import os
import random
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from course import TOOLS, MailServer
from instruments.host import memory_tmp_dir  # the strace log grows with every step: in memory when possible

from . import fs_trace
from .endpoint import Connections, Handler, HandOffHandler, HandOffServer, Server
from .child import TEMP_NAME_LETTERS
from .folder import Folder, Places
from .guise import (STUDENT_NAME, STUDENT_PIDS, cell_file, etc_files, future_flags, kernel_argv, proc_entries,
                    runtime_files, started_ticks, write_entries, write_runtime)
from .isolation import (ALLOW_ENV, ALLOW_FLAG, BWRAP_ENV, HANDOFF_NAME, SOCKET_DIR_INSIDE, SOCKET_NAME,  # noqa: F401 (re-exported)
                        COURSE_INSTALLED, KEPT_SCRATCH_INSIDE, SCRATCH_INSIDE, WORK_INSIDE, IsolationUnavailable,
                        SandboxError, allow_unisolated, bwrap_path,
                        isolation_problem, python_prefixes, require_isolation, strace_path)
from .lessons import DEFAULT, Lesson
from .notebook_code import load_reference
from .pids_cgroup import PidsCgroup
from .protocol import BEFORE, DEFINING, CellStatus, Job, Left, PhaseKind, StepStatus
from .scenario import Limits, Outcome, Scenario, SubmissionTrouble, tool_names  # noqa: F401 (Scenario: the hidden tests')
from .scenario_run import LINGER, STEP_TRACE_BYTES, ScenarioRun
from .trouble import kinds_of_error
from .zygote import TRACE_TIMEOUT, Zygote

MAX_EVENTS_PER_STEP = 5000  # file-system events kept per step
TOOL_NAMES = [tool["name"] for tool in TOOLS]
FLOODED = (f"输出或写入了 {STEP_TRACE_BYTES >> 20} MB 以上还没有停（多半是循环里在 print 或写文件），"
           "评分器提前结束了它")
HOME_INSIDE = str(Path(WORK_INSIDE).parent)  # read-only: a cache there falls back to the step's /tmp


class Sandbox:
    """The sandboxed zygote, strace and the grader's endpoints, for one grading session."""

    def __init__(self, limits: Limits | None = None, lesson: Lesson = DEFAULT):
        self.limits = limits or Limits()
        self.lesson = lesson
        self.api_key = f"sk-ant-api03-{secrets.token_urlsafe(70)[:93]}AA"  # shaped like a real one (Scenario.api_key)
        self.strace = strace_path()
        self.isolated = require_isolation()
        self.bwrap = bwrap_path()
        self.reference = load_reference(lesson)  # the grader's stand-ins and the hidden tests' oracle
        self.tool_lock = threading.RLock()
        # RLIMIT_NPROC does not bind root: a root grader's sandbox gets a pids cgroup instead
        self.pids = PidsCgroup(self.limits.cgroup_tasks) if self.isolated and os.geteuid() == 0 else None
        _remove_abandoned()
        self._scratch = scratch_folder("sandbox")
        self.base = Path(self._scratch.name)
        self.socket_dir = self.base / "socket"
        self.socket_dir.mkdir()
        self.socket_path = self.socket_dir / SOCKET_NAME
        self.host_work = self.base / "work"  # without isolation; with it, the sandbox's own /work
        self.host_work.mkdir()
        self.host_scratch = None  # with isolation, the sandbox's own KEPT_SCRATCH_INSIDE
        self.zygote_pid = None
        # What the student's process is in every step of this session, as a kernel is in every cell: its pid, its
        # sys.argv, and a /proc that shows it (written once the zygote, a plausible python, has started)
        self.student_pid = STUDENT_PIDS[0] + secrets.randbelow(STUDENT_PIDS[1] - STUDENT_PIDS[0])
        self.kernel_argv = kernel_argv(sys.executable, HOME_INSIDE)
        self.proc = self.base / "kernel-proc"
        self.proc.mkdir()
        self.etc = self.base / "etc"
        self.etc.mkdir()
        for name, text in etc_files(os.uname().nodename).items():
            (self.etc / name).write_text(text, encoding="utf-8")
        self.runtime = self.base / "jupyter-runtime"  # bound where sys.argv's connection file is
        self.runtime.mkdir()
        write_runtime(str(self.runtime), runtime_files(self.kernel_argv, WORK_INSIDE))
        self.runs = {}
        self.connections = Connections()
        self._server = Server(str(self.socket_path), Handler)
        self._handoff = HandOffServer(str(self.socket_dir / HANDOFF_NAME), HandOffHandler)
        for server in (self._server, self._handoff):
            server.sandbox = self
            threading.Thread(target=server.serve_forever, daemon=True).start()
        self.zygote = Zygote(self)

    def compiled(self, cells: list) -> list:
        """`cells` with their code compiled here, once per submission, rather than in each of its some 30 step
        processes: under the name the student's process gives each cell (guise.cell_file with its pid, known only with
        isolation). A cell that does not compile, or warns as it compiles, is left to the step's process: its error or
        warning is the student's there, as in a notebook."""
        if not self.isolated:
            return cells
        compiled, flags = [], 0
        for cell in cells:  # each with the __future__ flags the cells before it left on, as in a kernel
            made = _compiled(cell["source"], self.student_pid, flags)
            compiled.append({**cell, **made, **({"future": flags} if made else {})})
            flags = future_flags(cell["source"], flags)
        return compiled

    def zygote_hello(self, pid: int):
        if self.zygote_pid is None:
            self.zygote_pid = pid
            if self.isolated and not any(self.proc.iterdir()):
                self._write_proc(pid)

    def _write_proc(self, zygote: int):
        with open(f"/proc/{zygote}/status") as status, open(f"/proc/{zygote}/stat") as stat, \
                open("/proc/self/cgroup") as cgroup, open("/proc/uptime") as uptime:
            started = started_ticks(float(uptime.read().split()[0]), random.SystemRandom())
            entries = proc_entries(self.student_pid, status.read(), stat.read(), cgroup.read(), self.kernel_argv,
                                   sys.executable, started)
        write_entries(str(self.proc), entries)

    def run(self, scenario: Scenario, cells: list, trouble: SubmissionTrouble, history: list = (),
            decor: dict | None = None) -> Outcome:
        """Run every step of `scenario`, each in its own process, after defining `cells` minus the bad ones, in a
        kernel whose input history is the notebook's code cells (`history`, as Submission.history), in a working
        folder that also holds `decor` (folder.notebook_folder_files), which no listing of it shows unless changed."""
        self.zygote.ensure_started(rotate=True)
        name = secrets.token_hex(6)
        inside = f"{WORK_INSIDE}/{name}" if self.isolated else str(self.host_work / name)
        folder = Folder(self.host_work / name, inside)
        scratch, tmp_mail = self._own_scratch(name) if self.isolated else ({}, None)  # unisolated: the machine's own
        places = Places(folder, scratch, decor)
        # bytes for a file that is not UTF-8 on purpose
        for relative, content in [*(decor or {}).items(), *scenario.files.items()]:
            folder.put(relative, content)
        token = secrets.token_urlsafe(16)
        run = ScenarioRun(self, scenario, places, trouble, tmp_mail)
        mail_folder = self.socket_dir / f"mail-{name}"  # bound into the sandbox read-only, with the sockets
        mail_folder.mkdir()
        try:
            with MailServer(mail_folder, on_delivery=run.on_delivery) as mail:
                run.mail = mail
                run.sending_before = True
                for email in scenario.emails_before:
                    tool_input, key = (email, None) if isinstance(email, dict) else email
                    run.run_tool("send_email", dict(tool_input), key)
                run.sending_before = False
                self.runs[token] = run
                self._steps(run, scenario, cells, trouble, token, list(history))
                for name, report in trouble.bad_cells.items():  # left out here: why, for the feedback
                    run.cells.setdefault(name, report)
                files_after = {}
                left = places.regular_files() if scenario.read_left else []
                for relative in {*scenario.files, *scenario.read_after, *scenario.ledgers, *left,
                                 *([scenario.watch] if scenario.watch else [])}:
                    data = places.read_bytes(relative)  # a file cut off mid-character is still there, and broken
                    files_after[relative] = None if data is None else data.decode("utf-8", errors="replace")
                listing = places.regular_files()
        finally:
            self.runs.pop(token, None)
            places.remove()
            shutil.rmtree(mail_folder, ignore_errors=True)
        steps = [s if s is not None else {"status": StepStatus.NOT_RUN} for s in run.steps]
        for step, asked in zip(steps, scenario.steps):
            # not a full disk the grader made on purpose (a file-size limit, or its own saves failing)
            if step["status"] is StepStatus.RAISED and not (asked.get("file_size_limit") or asked.get("saves_fail_from")):
                trouble.kinds.update(kinds_of_error(step["error"]))
        files_by_step, defined_files = [], []
        for index in range(len(scenario.steps)):  # a step that did not run left the folder as it was
            files_by_step.append(run.files_by_step.get(index, files_by_step[-1] if files_by_step else listing))
            defined_files.append(run.defined_files.get(index, defined_files[-1] if defined_files else []))
        return Outcome(scenario, steps, run.model_calls, run.tool_calls, run.standin_calls, run.deliveries,
                       run.delivered_ids, run.lookups, files_after, run.cells, inside, run.fs_events, files_by_step,
                       run.returned_at, run.started_at, defined_files, run.left_running, run.read_before,
                       sorted(run.mail_elsewhere))

    def _steps(self, run: ScenarioRun, scenario: Scenario, cells: list, trouble: SubmissionTrouble, token: str,
               history: list):
        index, attempts = 0, 0
        agent_tools = sorted(tool_names([scenario.files, scenario.steps]) - set(TOOL_NAMES))  # the same for each job
        while index < len(scenario.steps) and attempts < len(cells) + 2 * len(scenario.steps) + 3:
            attempts += 1
            batch = [index]
            while (batch[-1] + 1 < len(scenario.steps) and scenario.steps[index].get("batch") is not None
                   and scenario.steps[batch[-1] + 1].get("batch") == scenario.steps[index].get("batch")):
                batch.append(batch[-1] + 1)
            for relative, content in scenario.files_before.get(index, {}).items():
                run.folder.put(relative, content)
            for step in (scenario.steps[i] for i in batch):
                for value in [*step.get("args", []), *step.get("kwargs", {}).values()]:
                    if isinstance(value, dict) and "$path" in value:
                        run.folder.make_parents(value["$path"])
            job: Job = {"id": secrets.token_hex(8), "isolated": self.isolated, "token": token,
                        "socket": self._inside(SOCKET_NAME), "handoff": self._inside(HANDOFF_NAME),
                        "maildir": self._inside(run.mail.maildir_path.relative_to(self.socket_dir)),
                        "agent_tools": agent_tools,
                        "student_pid": self.student_pid, "argv": self.kernel_argv, "linger": LINGER,
                        "workdir": run.folder.inside, "env": self._step_env(run), "limits": vars(self.limits),
                        "cells": [c for c in cells if c["name"] not in trouble.bad_cells],
                        "report_cells": trouble.report_cells, "history": history, "standins": list(scenario.standins),
                        "steps": [[i, scenario.steps[i]] for i in batch],
                        "scratch": {target: kept.inside for target, kept in run.places.scratch.items()},
                        "under_tmp": _under_tmp(), "tmp_mail": run.tmp_mail}
            run.start_job(batch)
            ended = []  # why the grader ended the job: "time" (past its deadline) or "output" (flooding)

            def on_wait():
                why = None if ended else run.overdue()
                if why:
                    ended.append(why)
                    run.kill_step()

            status, lines = self.zygote.run(job, on_wait)
            ended_by = ended[0] if ended else None
            if self.pids is not None and self.pids.limit_was_hit():
                trouble.kinds["processes"] += 1
            if not self.connections.wait_until_read(TRACE_TIMEOUT):
                raise SandboxError("评分器没能读完这一步的进程发来的消息 / a step's messages were not all read")
            with run.lock:
                phase, crashed, failure = run.phase, run.crashed, run.failure
            run.end_job()
            # strace cannot tell the calls of one process apart: what it saw counts for the first of them
            tried, maildir = [], (f"/tmp{run.tmp_mail}",) if run.tmp_mail else ()
            events = fs_trace.events(lines, index, run.folder.inside, skip_pid=self.zygote_pid, roots=SCRATCH_INSIDE,
                                     guarded=maildir, attempts=tried)
            # whether it got written or not: a file the next kernel, or a process the code starts, would run; an
            # email put in the mail server's Maildir around SMTP (or one taken out), which the notebook's checks count
            startup = [path for path in tried if fs_trace.STARTUP_FILE.search(path)]
            forged = [path for path in tried if path not in startup]
            left = [*([Left.STARTUP_FILE] if startup else []), *([Left.MAILDIR] if forged else [])]
            if left:
                run.left_running.append({"step": batch[-1], "left": left, "files": startup + forged})
                trouble.kinds["left_running"] += 1
            if len(events) > MAX_EVENTS_PER_STEP:  # judged on the first ones only: the verdict says so
                trouble.kinds["trace"] += 1
                events = events[:MAX_EVENTS_PER_STEP]
            run.fs_events += events
            run.settle_defined_files(batch, events)
            listing = run.places.regular_files()
            run.files_by_step.update((i, listing) for i in batch)
            run.listing = frozenset(listing)
            if crashed and run.places.scratch:
                # the grader's crash stands for any crash, the machine's too: /tmp and /dev/shm (memory, as on many
                # machines) are lost, and a journal kept there does not stand in for the checkpoint
                for kept in run.places.scratch.values():
                    kept.remove()
                run.places.scratch, run.tmp_mail = self._own_scratch(secrets.token_hex(6))
            if failure is not None or phase == BEFORE:  # no student code has run yet: the grader is broken
                how = "超时" if ended_by else _how_it_died(status)
                raise SandboxError(f"评分沙箱的子进程没能启动（{how}）\n{failure or ''}")
            index = next((i for i in batch if run.steps[i] is None), batch[-1] + 1)
            if index > batch[-1]:
                left = [] if crashed else _left_running(status, ended_by)
                if left:
                    run.left_running.append({"step": batch[-1], "left": left})
                    trouble.kinds["left_running"] += 1
                continue
            step = scenario.steps[index]
            if phase == DEFINING:
                if trouble.report_cells:  # reported before each cell, and died before the first report
                    raise SandboxError(f"评分沙箱的子进程在定义代码之前退出了（{_how_it_died(status)}）")
                trouble.report_cells = True  # once more, learning which cell it is
                continue
            if not crashed:  # the grader's own crash is no trouble of the student's
                trouble.kinds[_trouble_kind(status, ended_by is not None)] += 1
            if phase.kind is PhaseKind.CELL:
                # defining this cell hangs or kills the process: left out from now on
                trouble.bad_cells[phase.cell] = run.cells[phase.cell] = {
                    "status": CellStatus.TIMEOUT if ended_by else CellStatus.DIED,
                    "error": {"type": "", "message": FLOODED if ended_by == "output" else _how_it_died(status)}}
                continue
            if crashed:
                run.steps[index] = {"status": StepStatus.CRASHED_BY_GRADER}
            elif ended_by:
                run.steps[index] = {"status": StepStatus.TIMEOUT, "detail": FLOODED if ended_by == "output" else
                                    f"超过 {run.step_limit(index):g} 秒还没有结束（死循环或在等什么）"}
                trouble.hung.add(step["name"])
            else:
                run.steps[index] = {"status": StepStatus.DIED, "detail": _how_it_died(status)}
            index += 1
            if not (crashed or scenario.independent_steps):
                return

    def _own_scratch(self, name: str) -> tuple:
        """The scenario's own /tmp and /dev/shm ({"/tmp": Folder, ...}), and where in its /tmp the Maildir is shown
        (named as course.MailServer names its own); the folders the steps bind things onto are made in it."""
        scratch = {}
        for target in SCRATCH_INSIDE:
            kept = name + target.replace("/", "-")
            scratch[target] = Folder(self.host_scratch / kept, f"{KEPT_SCRATCH_INSIDE}/{kept}")
            os.chmod(scratch[target].fd, 0o1777)
        mail = f"course-mail-{''.join(secrets.choice(TEMP_NAME_LETTERS) for _ in range(8))}/maildir"
        for relative in [mail, *(prefix.removeprefix("/tmp/") for prefix in _under_tmp())]:
            scratch["/tmp"].make_folder(relative)
        return scratch, "/" + mail

    def _inside(self, relative) -> str:
        """A path under the socket folder, as the sandbox's processes name it."""
        return f"{SOCKET_DIR_INSIDE}/{relative}" if self.isolated else str(self.socket_dir / relative)

    def _step_env(self, run: ScenarioRun) -> dict:
        """A notebook kernel's environment, as JupyterLab's server and ipykernel set it (JPY_SESSION_NAME: the notebook,
        in the working folder, folder.notebook_folder_files), with the user's own variables (USER, LOGNAME, SHELL:
        every login and JupyterHub's spawners set them); the step's first process adds the mail server's
        port and Maildir, as course.MailServer does. HOME is not the working folder, as a notebook's usually is not:
        what libraries cache there (matplotlib's and fontconfig's fonts) is no file the student's code left."""
        home = HOME_INSIDE if self.isolated else run.folder.inside
        # with a key, COURSE_OFFLINE=1 too (a setting the course documents): make_client() stays offline, in a cell's
        # definition too (a quiz cell may try the model first)
        return {**({"ANTHROPIC_API_KEY": self.api_key, "COURSE_OFFLINE": "1"} if run.scenario.api_key else {}),
                "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home,
                "TERM": "xterm-color", "CLICOLOR": "1", "CLICOLOR_FORCE": "1", "FORCE_COLOR": "1", "PAGER": "cat",
                "GIT_PAGER": "cat", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
                "PYDEVD_USE_FRAME_EVAL": "NO", "JPY_PARENT_PID": "1", "USER": STUDENT_NAME, "LOGNAME": STUDENT_NAME,
                "SHELL": "/bin/bash", "JPY_SESSION_NAME": f"{run.folder.inside}/{self.lesson.notebook}.ipynb"}

    def close(self):
        self.zygote.close()
        if self.pids is not None:
            self.pids.close()
        for server in (self._server, self._handoff):
            server.shutdown()
            server.server_close()
        self._scratch.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _compiled(source: str, pid: int, flags: int = 0) -> dict:
    """{"code", "file"} of protocol.Cell for `source`, or {} if it does not compile cleanly; as the step's process
    compiles it (the __future__ flags `flags` of the cells before it, none of the grader's own, the interpreter's
    default optimisation there)."""
    file = cell_file(source, pid)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            code = compile(source, file, "exec", flags=flags, dont_inherit=True, optimize=0)
        except Exception:  # SyntaxError, a null byte, nesting too deep: the step's process raises it for the student
            return {}
    if warned:
        return {}
    return {"code": binascii.b2a_base64(marshal.dumps(code), newline=False).decode("ascii"), "file": file}


def _under_tmp() -> list:
    """The interpreter's folders, and the course where its installation maps it, that live under /tmp: bound again in
    each scenario's own /tmp (a repository cloned under /tmp, as CI's may be)."""
    return [place for place in (*python_prefixes(), COURSE_INSTALLED) if place.startswith("/tmp/")]


def scratch_folder(purpose: str) -> tempfile.TemporaryDirectory:
    """A folder for the grader's own files (a sandbox's sockets and strace log, the reference's saves, rebuilt crash
    states, Hypothesis's caches), in memory when possible: the strace log grows with every step, and the reference
    fsyncs. Named grader-<pid>-<purpose>-..., so that a grader killed before removing it has it removed by the next
    one (_remove_abandoned); a folder that cannot be removed in full never fails a judgement."""
    return tempfile.TemporaryDirectory(prefix=f"grader-{os.getpid()}-{purpose}-", dir=memory_tmp_dir(),
                                       ignore_cleanup_errors=True)


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


def _left_running(status: dict, ended_by: str | None) -> list:
    """What a job whose steps all reported back had left still running when the watch after them ran out
    (protocol.Left): as the zygote saw it, or, if the grader had to end the job first (scenario_run.LEFTOVERS_TIMEOUT,
    or flooding), the student's process that had not ended, with the threads it was waiting for (had it ended, the
    zygote would name the processes left)."""
    left = [Left(kind) for kind in status.get("left", ())]
    return left or ([Left.THREADS] if ended_by else [])


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
