"""The sandbox's zygote as the grader drives it: strace, around bubblewrap, around the forking
process (autograder.child); one job at a time, its strace lines read back for the step."""
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import fs_trace
from .child import MARK_PREFIX
from .isolation import (KEPT_SCRATCH_INSIDE, SOCKET_DIR_INSIDE, SOCKET_NAME, WORK_INSIDE, SandboxError, bwrap_options,
                        sandbox_env)
from .notebook_code import ROOT

# Past this much read, the strace log's read part is freed (or, where the file system cannot, the log is started
# afresh with a new zygote: a zygote's start costs seconds, and a judgement writes megabytes).
MAX_TRACE_BYTES = 64 * 1024 * 1024
TRACE_TIMEOUT = 10.0  # strace writes a step's last line before the zygote's end mark; waiting longer is a bug


class Zygote:
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
            runtime = (str(sandbox.runtime), os.path.dirname(sandbox.kernel_argv[-1]))
            command = [sandbox.bwrap, *bwrap_options(str(sandbox.socket_dir), sandbox.limits.work_size,
                                                     str(sandbox.proc), str(sandbox.etc), runtime,
                                                     sandbox.limits.tmp_size)]
            socket_path, env = f"{SOCKET_DIR_INSIDE}/{SOCKET_NAME}", sandbox_env()
        else:
            command, socket_path, env = [], str(sandbox.socket_path), sandbox_env(str(ROOT))
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
            sandbox.host_scratch = Path(f"/proc/{sandbox.zygote_pid}/root{KEPT_SCRATCH_INSIDE}")

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
        if rotate and self.alive() and self.trace.offset - self.trace.freed > MAX_TRACE_BYTES:  # between scenarios
            if not self.trace.discard_read():
                self.close()
        if not self.alive():
            self._start()

    def run(self, job: dict, on_wait) -> tuple:
        """(exit status, strace lines of the step) for one job: {"exit_code"} or {"signal"} of the student's process
        (of pid 1 if it was killed first), with "left" (what still ran when the watch ended, protocol.Left); or
        {"zygote_died"}."""
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
