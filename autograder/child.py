"""The sandbox side of grading: a zygote that forks one process per step, and the driver
that runs the student's code in it.

`autograder.sandbox` starts this module as `python -m autograder.child` inside
bubblewrap (its own user, pid, network, mount, ipc and uts namespaces, an unprivileged
uid, read-only binds of only the interpreter, its packages, course/, this file,
protocol.py, guise.py, contract.py, armed.py and untraced.py), under strace. The zygote imports the course runtime once (importing
anthropic takes seconds; forking takes milliseconds), then reads jobs (protocol.Job), one
JSON object per line, from stdin. Each job is one step of a scenario, or a few steps that
share a process (a "batch"). For it the zygote clones the step's first process straight into
namespaces of its own again (user, pid, network, mount, ipc, uts), where it is pid 1. That
process binds the scenario's /tmp and /dev/shm, hands the grader the step's SMTP port (the
hand-off, autograder.endpoint), covers /proc with one of the step's own (autograder.guise),
and forks the student's process with a pid like a notebook kernel's. The student's process
drops every capability, lowers its resource limits, defines the student's cells and performs
the steps (in an event loop, as a kernel does), then waits for the threads it started and for
what its loop still holds; pid 1 waits for every process the step left behind. When pid 1
ends, the kernel kills whatever is left, before the zygote reports the job as done; the
grader's deadline kills pid 1. (Forking the student's process from pid 1, rather than running
the student's code as pid 1, costs a second copy of the zygote's page tables per step:
within the noise of a judgement's CPU, docs/design.md.)

The zygote marks where each step begins and ends by opening a path that does not exist
(`MARK_PREFIX`...): the grader reads those marks in the strace log, from the zygote's
own pid (no student code ever runs in the zygote), and so knows which file-system
events belong to which step.

Nothing the step's process says is a verdict. It sends plain data to the grader over a
Unix socket (what a function returned or raised), it asks the grader to run every tool
and to answer every model call (through the course's own execute_tool and client: only the
functions at their bottom are the grader's, `_reach_the_grader`), and the grader judges. Student code runs in the same
process, so it can lie about anything the process reports; the grader therefore takes
from it only what the student's functions control anyway (return values, exceptions),
and observes effects (tool calls, model calls, emails, files) itself.
"""
import atexit
import builtins
import ctypes
import gc
import importlib._bootstrap_external as _import_machinery
import os

from .untraced import filter_program, number

SYS_OPENAT2, AT_FDCWD = number("openat2"), -100


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_READ_ONLY = _OpenHow(os.O_RDONLY | os.O_CLOEXEC, 0, 0)
_libc = ctypes.CDLL(None, use_errno=True)


def _read_module_file(loader, path):
    """What the import system's FileLoader.get_data returns, read with calls strace does not stop at: the zygote
    imports some 3600 modules, and under strace each openat and close of them stopped the process (half of its
    start, docs/design.md, 速度). openat2 and close_range (os.closerange) are outside fs_trace.TRACED; no step can
    use openat2 (_forbid_untraced_calls), and the import system is put back before any step."""
    fd = _libc.syscall(SYS_OPENAT2, AT_FDCWD, os.fsencode(path), ctypes.byref(_READ_ONLY), ctypes.sizeof(_READ_ONLY))
    if fd < 0:  # a kernel before 5.6, or a file that is not there: os.open says which, as the import system expects
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.closerange(fd, fd + 1)


_get_data = _import_machinery.FileLoader.get_data  # put back before any step: a student's imports are a notebook's
if __name__ == "__main__":
    _import_machinery.FileLoader.get_data = _read_module_file

import binascii
import errno
import fcntl
import marshal
import _socket
import _thread
import inspect
import io
import struct
from _json import encode_basestring_ascii as _c_encode_basestring_ascii
from _json import make_encoder as _c_make_encoder
import json
import linecache
import socket
import resource
import signal
import sys
import time
import traceback
import types
import weakref
from pathlib import Path

# The standard library a student may import, and what gets loaded lazily later (the idna codec on the
# SDK's first request, _strptime on the first strptime): loaded once here, so step processes start fast.
import argparse, collections, contextlib, copy, csv, dataclasses, datetime, decimal, difflib  # noqa: E401,F401
import encodings.idna, encodings.utf_8_sig, fnmatch, fractions, functools, glob, gzip, hashlib  # noqa: E401,F401
import heapq, html, itertools, logging, math, mmap, pickle, pprint, queue, random, re, secrets, shlex  # noqa: E401,F401
import shutil, smtplib, sqlite3, statistics, string, _strptime, tempfile, textwrap, timeit  # noqa: E401,F401
import threading, typing, unicodedata, uuid, zipfile, zoneinfo  # noqa: E401,F401
import concurrent.futures.thread as _pool_thread
import dis

import anthropic
import httpx2

import course
import course.checks  # the lessons' first cells import them
import course.checks_ledger
import course.ledger
import course.mail
import course.model
import course.tools

from .armed import ARMED, DICT_VERSION_OFFSET, VERSIONED, Modules, Words, armed_kinds, watch
from .contract import RETURNS_A_LIST, listed
from .guise import (FUTURE_FLAGS, PROC_FOLDER, PROC_MACHINE, STUDENT_UID, as_in_a_kernel, cell_file, environ_text,
                    holds_work, kernel_history, kernel_loop, kernel_shell, kernel_streams, looking_like, run_as_a_cell,
                    run_loop_for)
from .protocol import (INTERRUPT, ZYGOTE_TOKEN, CellStatus, Endpoint, EventKind, EventStatus, Job, Left, ModelRoute,
                       StepStatus)

CHILD_FAILED = 70  # exit code of a step whose driver failed; the traceback goes to the grader
# exit code of the student's process (its threads) or of pid 1 (the processes the step left) when something still ran
# as the watch after the steps ran out: in a notebook it would go on, so the grader cannot judge what it did
LEFT_RUNNING = 71
# ...of the student's process when no thread ran but something was still to run later: a callback, timer, task or
# reader on the kernel's event loop, or an alarm (signal.alarm, setitimer's ITIMER_REAL)
LEFT_SCHEDULED = 72
# ...when what ran as the kernel shut down (`_as_a_kernel_ends`: atexit's functions, threading's, logging.shutdown's
# closing of a handler, finalizers, __del__) called a tool: in a notebook it runs whenever the kernel ends, so the
# grader cannot tell which call of the step it belongs to
LEFT_TOOL_AT_END = 73
# ...when nothing ran or was to run but code was left armed in the interpreter (autograder.armed): this plus its mask,
# of len(ARMED) bits (an exit code is below 256)
LEFT_ARMED = 80
assert LEFT_ARMED + (1 << len(ARMED)) <= 256
MARK_PREFIX = "/.grader-mark-"  # + "<job id>-begin" / "-end": opened (and not found) by the zygote

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
STEP_NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS
SYS_CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220}.get(os.uname().machine)  # clone(2)'s number
SYS_CLONE3 = 435  # clone3(2), the same number on every architecture that has it
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 2, 4, 8, 0x1000, 0x2000, 0x4000, 0x40000
MS_RDONLY, MS_REMOUNT = 1, 32
# statvfs flags a bind remount must keep (a user namespace may not clear them); their values are the MS_ ones
KEPT_MOUNT_FLAGS = os.ST_NOSUID | os.ST_NODEV | os.ST_NOEXEC | os.ST_NOATIME | os.ST_NODIRATIME | os.ST_RELATIME
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 4, 24, 38
LINUX_CAPABILITY_VERSION_3, LAST_CAPABILITY = 0x20080522, 63
MADV_COLLAPSE, HUGE_PAGE = 25, 2 * 1024 * 1024
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]

# Captured before any student code runs: the driver keeps using these even if the
# student rebinds the builtins or monkeypatches modules.
_type, _issubclass, _len, _id = type, issubclass, len, id
_str_copy, _int_copy, _float_copy = str.__str__, int.__index__, float.__float__
_dict_items, _list_iter, _tuple_iter = dict.items, list.__iter__, tuple.__iter__
_dict_set, _list_append = dict.__setitem__, list.append
_ValueError, _BaseException = ValueError, BaseException
_ERRORS = {name: kind for name, kind in vars(builtins).items() if isinstance(kind, type) and issubclass(kind, Exception)}
_json_loads = json.loads
_marshal_loads, _from_base64 = marshal.loads, binascii.a2b_base64
_Socket, _AF_UNIX, _SOCK_STREAM = _socket.socket, _socket.AF_UNIX, _socket.SOCK_STREAM
_os_exit = os._exit
_environ = os.environ  # the process's own mapping, even if a cell rebinds os.environ
# In a notebook these exist only inside `with MailServer():`, around a run, never while cells are defined, and never in
# /proc/self/environ (putenv after start does not change it): the step's process gets them from its first step on.
MAIL_ENV = (course.tools.SMTP_PORT_ENV, course.tools.MAILDIR_ENV)
MAIL_TOOLS = ("send_email", "list_sent_emails")  # their leaves (and send_email's lookup) ask the mail server
_step_now = [{}]  # the step running now (its options, for the grader's stand-ins)
_kernel_ending, _tools_at_end = [False], [0]  # set as the steps' kernel ends; tools called since
_threads_running = _thread._count  # threads other than the main one, whoever started them
_current_frames = sys._current_frames
# Where a thread pool's worker (concurrent.futures, asyncio's default executor) waits for work: its code and line
_POOL_WORKER = _pool_thread._worker.__code__


def _line_of_call(code, name: str) -> int | None:
    """The line of `code` where it first calls `name` (dis's line starts: Instruction.positions is 3.11's)."""
    starts, line = dict(dis.findlinestarts(code)), None
    for instruction in dis.get_instructions(code):
        line = starts.get(instruction.offset) or line
        if instruction.argval == name:
            return line
    return None


_POOL_WAIT_LINE = _line_of_call(_POOL_WORKER, "get")
_SimpleQueue = queue.SimpleQueue
_THREADING_FILE, _WeakSet = threading.__file__, weakref.WeakSet


def _tqdm_monitor_wait() -> tuple:
    """tqdm's folder and where its monitor thread (tqdm._monitor.TMonitor.run) sleeps between its checks, read from
    the installed files without importing tqdm; (None, None, None) when it is not installed."""
    import importlib.util
    spec = importlib.util.find_spec("tqdm")
    if spec is None or spec.origin is None:
        return None, None, None
    folder = os.path.dirname(spec.origin)
    monitor = os.path.join(folder, "_monitor.py")
    try:
        lines = Path(monitor).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None, None, None
    wait = [n for n, line in enumerate(lines, 1) if line.strip() == "self.was_killed.wait(self.sleep_interval)"]
    return (folder + os.sep, monitor, wait[0]) if len(wait) == 1 else (None, None, None)


_TQDM_FOLDER, _TQDM_MONITOR, _TQDM_WAIT_LINE = _tqdm_monitor_wait()
_tqdm_collected = [False]  # whether a collection has run for a monitor's open bars (once per process)


def _in_tqdm(function) -> bool:
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    return code is not None and code.co_filename.startswith(_TQDM_FOLDER)


def _idle_tqdm_monitor(frame) -> bool:
    """A progress bar's monitor thread (tqdm starts one with its first bar and keeps it for good) asleep between its
    checks, with every bar closed: when it wakes it only finds no bar to refresh and sleeps again, as in a kernel.
    What it calls then must be tqdm's own code (a bar left open, or a patched method, keeps it counted). Only until
    the kernel ends: the atexit function tqdm registered stops it then; one still there is counted."""
    if _TQDM_MONITOR is None or _kernel_ending[0]:
        return False
    for _ in range(3):  # Condition.wait and Event.wait (threading.py) on top of the monitor's run
        if frame is None or frame.f_code.co_filename != _THREADING_FILE:
            break
        frame = frame.f_back
    if (frame is None or frame.f_code.co_filename != _TQDM_MONITOR or frame.f_code.co_name != "run"
            or frame.f_lineno != _TQDM_WAIT_LINE):
        return False
    try:
        monitor = frame.f_locals["self"]
        bars = monitor.__dict__["tqdm_cls"]
        instances = getattr(bars, "_instances", None)
        if type(instances) is _WeakSet and len(instances) and not _tqdm_collected[0]:
            # a bar nothing refers to any more but its own cycle (tqdm.notebook's self.disp = self.display, left open
            # when an exception went by) is closed by the kernel's next collection: once, here
            _tqdm_collected[0] = True
            _collect()
        return (type(instances) is _WeakSet and len(instances) == 0 and _in_tqdm(type(monitor).run)
                and _in_tqdm(type(monitor).get_instances) and _in_tqdm(bars.get_lock))
    except _BaseException:
        return False


# The student's process's own tasks and POSIX timers, in the real /proc (its cover has neither), at descriptors it
# keeps from before its code runs: a thread started without the threading module (ctypes' pthread_create) and a
# timer_create timer are waited for as a thread and an alarm are; in a notebook they would go on in the idle kernel.
TASKS_FD, TIMERS_FD = 253, 254  # below RLIMIT_NOFILE's 256
MAX_TIMER_ID = 64  # where /proc/<pid>/timers is missing (a kernel without CONFIG_CHECKPOINT_RESTORE): ids tried
_TIMER_ID = re.compile(rb"^ID: (\d+)$", re.MULTILINE)
_timer_gettime = _libc.timer_gettime


class _TimerSpec(ctypes.Structure):
    _fields_ = [("interval_s", ctypes.c_long), ("interval_ns", ctypes.c_long),
                ("value_s", ctypes.c_long), ("value_ns", ctypes.c_long)]


_kept_inodes = {}  # TASKS_FD, TIMERS_FD -> the inode each was opened on: the student's code may close or reuse them


def _kept(fd: int, fstat=os.fstat, inodes=_kept_inodes) -> bool:
    try:
        return fd in inodes and fstat(fd).st_ino == inodes[fd]
    except OSError:
        return False


def _untracked_threads(listdir=os.listdir, count=_threads_running, kept=_kept) -> int:
    """Threads the threading module does not count: the process's tasks less the main thread and _thread's threads.
    The descriptor gone or replaced: counted as one, never as none."""
    try:
        return max(0, len(listdir(TASKS_FD)) - 1 - count()) if kept(TASKS_FD) else 1
    except OSError:
        return 1


def _posix_timer_armed(pread=os.pread, find=_TIMER_ID.findall, gettime=_timer_gettime, spec=_TimerSpec,
                       void_p=ctypes.c_void_p, byref=ctypes.byref, kept=_kept) -> bool:
    """Whether a timer of timer_create (a real-time or a CPU-time one) is still to go off."""
    try:
        ids = [int(found) for found in find(pread(TIMERS_FD, 1 << 16, 0))] if kept(TIMERS_FD) else range(MAX_TIMER_ID)
    except OSError:
        ids = range(MAX_TIMER_ID)
    for timer in ids:
        left = spec()
        if gettime(void_p(timer), byref(left)) == 0 and (left.value_s or left.value_ns):
            return True
    return False


def _keep_own_tasks_and_timers(job: Job):
    """TASKS_FD and TIMERS_FD: this process's tasks and POSIX timers in the real /proc."""
    where = {"dir_fd": job["real_proc"]} if job["isolated"] else {}
    base = "self" if job["isolated"] else "/proc/self"
    for fd, name, flags in ((TASKS_FD, "task", os.O_DIRECTORY), (TIMERS_FD, "timers", 0)):
        try:
            opened = os.open(f"{base}/{name}", os.O_RDONLY | os.O_CLOEXEC | flags, **where)
        except FileNotFoundError:  # timers: see MAX_TIMER_ID
            continue
        os.dup2(opened, fd, inheritable=False)
        os.close(opened)
        _kept_inodes[fd] = os.fstat(fd).st_ino


def _threads_busy(count=_threads_running, frames=_current_frames, untracked=_untracked_threads):
    """The threads other than the main one that may still do something: all of them but a thread pool's idle
    workers, each waiting in the get of its empty work queue. In a kernel such a worker waits there for good and does
    nothing until code hands it work, and that code is watched itself (probe 15b: a pool made once at module level,
    idle after each call, cost an honest answer every check of its scenarios, full_save_worker_thread)."""
    idle = 0
    for frame in frames().values():
        if frame.f_code is _POOL_WORKER and frame.f_lineno == _POOL_WAIT_LINE:
            work = frame.f_locals.get("work_queue")
            if type(work) is _SimpleQueue and work.qsize() == 0:
                idle += 1
        elif _idle_tqdm_monitor(frame):
            idle += 1
    return max(0, count() - idle) + untracked()
# A kernel that shuts down runs what the student's code registered with atexit and weakref.finalize, and the __del__
# of what its namespace held; os._exit, which ends a step, does not
_run_exit_functions, _clear_exit_functions = atexit._run_exitfuncs, atexit._clear
_finalizers, _run_finalizers = weakref.finalize._registry, weakref.finalize._exitfunc
# ... and what threading runs before it joins the threads (threading._register_atexit), and logging.shutdown, which
# logging's import registered with atexit (in the zygote here): it flushes and closes every handler still there
_threading_exit_functions = threading._threading_atexits
_handlers_made, _shutdown_logging = logging._handlerList, logging.shutdown
# ... and it takes the modules out of sys.modules, tearing down those the student's code added (the last imported
# first): what only such a module held is finalized then. Their names before the student's code ran are noted with
# sys.modules' version then (`_note_modules`): listing the names touches each, and so copies the zygote's pages they
# are on into the step (some 3 ms a step), so it is done in the zygote, and again only where sys.modules changed since
_modules, _zygote_modules, _ModuleType = sys.modules, [frozenset(), None], types.ModuleType
_modules_version = Words([id(sys.modules) + DICT_VERSION_OFFSET])
_fork, _collect = os.fork, gc.collect
_getframe = sys._getframe
_TRANSPORT_CALL = httpx2.MockTransport.handle_request.__code__  # where an offline client hands over its request
_TOOL_LEAVES = dict(course.tools._TOOL_FUNCTIONS)  # the course's tool functions, before any step replaces them
_LOOKUP_LEAVES = dict(course.tools._LOOKUPS)  # the services that can be asked by idempotency key
_ANSWER = course.model.answer  # the offline model's answer to one request body
_make_client = course.model.make_client
_POSITIONAL = {function: [p.name for p in inspect.signature(function).parameters.values()
                          if p.kind is p.POSITIONAL_OR_KEYWORD]
               for function in (*_TOOL_LEAVES.values(), *_LOOKUP_LEAVES.values(), _ANSWER)}
_sleep, _monotonic, _getitimer = time.sleep, time.monotonic, signal.getitimer
DRIVER = str(Path(__file__).resolve().parent.parent)  # the folder this package is in
_shell = None  # the zygote's IPython shell (guise.kernel_shell), which every step inherits
_streams = (None, None)  # the zygote's kernel-like sys.stdout and sys.stderr (guise.kernel_streams), for every step
_DRIVER_MODULES = [name for name in sys.modules if name.split(".")[0] == __package__]  # to unlist in each step
_loaded = None  # the modules the zygote loaded (armed.Modules): a step must leave their attributes as it found them
TEMP_NAME_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"  # what tempfile names its folders with
ERROR_PREFIX = "错误："  # how execute_tool starts the text of a tool that raised

MAX_NODES = 200_000
MAX_DEPTH = 200
# characters of text in one value: escaped as JSON (up to 6 bytes each), a value and the arguments after a call
# stay well within what the grader reads of one message (endpoint.MAX_REQUEST_BYTES)
MAX_CHARACTERS = 1_500_000
MESSAGE_LIMIT = 2000


class NotPlain(Exception):
    """A value that JSON (and so a checkpoint) cannot hold."""


def plain(value):
    """A copy of `value` made only of dict, list, str, int, float, bool and None.

    Subclasses are copied through their base type's own methods, so an object that
    overrides __eq__, __str__ or items() cannot change what the grader receives.
    """
    budget = [MAX_NODES, MAX_CHARACTERS]
    active = set()

    def text(item):
        copied = _str_copy(item)
        budget[1] -= _len(copied)
        if budget[1] < 0:
            raise NotPlain("数据太大或嵌套太深")
        return copied

    def convert(item, depth):
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            raise NotPlain("数据太大或嵌套太深")
        kind = _type(item)
        if item is None or kind is bool:
            return item
        if _issubclass(kind, str):
            return text(item)
        if _issubclass(kind, int):
            return _int_copy(item)
        if _issubclass(kind, float):
            number = _float_copy(item)
            if number != number or number in (float("inf"), float("-inf")):
                raise NotPlain("NaN 或无穷大不能存进 JSON")
            return number
        if _issubclass(kind, (dict, list, tuple)):
            if _id(item) in active:
                raise NotPlain("数据里有循环引用")
            active.add(_id(item))
            try:
                if _issubclass(kind, dict):
                    result = {}
                    for key, val in _dict_items(item):
                        if not _issubclass(_type(key), str):
                            raise NotPlain(f"字典的键必须是字符串，这里有一个 {_type(key).__name__}")
                        result[text(key)] = convert(val, depth + 1)
                    return result
                items = _list_iter(item) if _issubclass(kind, list) else _tuple_iter(item)
                return [convert(val, depth + 1) for val in items]
            finally:
                active.discard(_id(item))
        raise NotPlain(f"{kind.__name__} 类型的对象不能存进 JSON")

    return convert(value, 0)


def describe_exception(exc) -> dict:
    kind = _type(exc)
    try:
        message = str(exc)
        message = _str_copy(message) if _issubclass(_type(message), str) else "（无法显示）"
    except _BaseException:
        message = "（无法显示）"
    return {"type": kind.__name__, "value_error": _issubclass(kind, _ValueError),
            "message": message[:MESSAGE_LIMIT]}




def make_poster(socket_path: str, token: str):
    """post(endpoint, payload, wait=True) -> reply: JSON over HTTP on the grader's Unix socket, one kept-alive
    connection. With wait=False the request is only sent (its reply is read before the next one's): the
    grader handles a connection's requests in order, and reads what a process sent even after it died.

    Built from the C socket and the C JSON encoder captured at import, so patching
    http.client, json or this module does not change what reaches the grader.
    """
    prefix = f"/s/{token}/"
    one_at_a_time = _thread.allocate_lock()
    held = [None, b"", 0]  # the connection, bytes received past the last reply, replies not read yet

    def receive(connection) -> bytes:
        data = held[1]
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                raise ConnectionError("评分器关闭了连接")
            data += chunk
        head, _, data = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            key, _, value = line.partition(b":")
            if key.strip().lower() == b"content-length":
                length = int(value)
        while _len(data) < length:
            chunk = connection.recv(65536)
            if not chunk:
                raise ConnectionError("评分器关闭了连接")
            data += chunk
        held[1] = data[length:]
        return data[:length]

    def exchange(request: bytes, wait: bool) -> bytes:
        if held[0] is None:
            connection = _Socket(_AF_UNIX, _SOCK_STREAM)
            connection.settimeout(120)
            connection.connect(socket_path)
            held[0], held[1], held[2] = connection, b"", 0
        connection = held[0]
        connection.sendall(request)
        if not wait:
            held[2] += 1
            return b""
        while held[2]:
            receive(connection)
            held[2] -= 1
        return receive(connection)

    def post(endpoint: str, payload, wait: bool = True) -> dict:
        body = _encode(payload).encode("utf-8")
        request = (f"POST {prefix}{endpoint} HTTP/1.1\r\nHost: grader\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {_len(body)}\r\n\r\n").encode("ascii") + body
        with one_at_a_time:  # the student's threads may call tools at once: one request and its reply at a time
            try:
                content = exchange(request, wait)
            except OSError:  # the grader closed an idle connection (or never answered): once more, afresh
                if held[0] is not None:
                    held[0].close()
                held[0] = None
                content = exchange(request, wait)
            except _BaseException:  # interrupted (KeyboardInterrupt) while waiting: that reply never comes
                if held[0] is not None:
                    held[0].close()
                held[0] = None
                raise
        return _json_loads(content) if content else {}

    return post


def _encode(value) -> str:
    return "".join(_c_iterencode(value, 0))


def _not_json(value):
    raise TypeError(f"{_type(value).__name__} 不能编码成 JSON")


_c_iterencode = _c_make_encoder(None, _not_json, _c_encode_basestring_ascii, None, ":", ",", False, False, True)


# --- the step's process ---------------------------------------------------------------

def _arguments(function, args, kwargs) -> dict:
    """A call's arguments by parameter name, as the call gave them (defaults left out)."""
    names = _POSITIONAL[function]
    if _len(args) > _len(names):
        raise TypeError(f"{function.__name__}() takes {_len(names)} positional arguments but {_len(args)} were given")
    arguments = dict(zip(names, args))
    arguments.update(kwargs)
    return arguments


def _check(result: int, what: str):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _write(path: str, text: str):
    with open(path, "w") as file:
        file.write(text)


def _vm_size() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))


def _clone_into_namespaces() -> int:
    """fork(), straight into new user, pid, network, mount, ipc and uts namespaces: the child is their pid 1.

    One clone(2) instead of a fork that unshares and forks again: forking a process that has imported the
    SDK is most of what a step costs. CPython's own fork hooks run around it, as its C API asks of
    "any similar function that clones the current process" (PyOS_BeforeFork, PyOS_AfterFork_*).
    """
    ctypes.pythonapi.PyOS_BeforeFork()
    pid = _libc.syscall(SYS_CLONE, STEP_NAMESPACES | signal.SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        ctypes.pythonapi.PyOS_AfterFork_Child()
        return 0
    ctypes.pythonapi.PyOS_AfterFork_Parent()
    _check(0 if pid > 0 else -1, "clone")
    return pid


def _set_up_namespaces(job: Job, uid: int, gid: int) -> int:
    """In the step's process, pid 1 of its new namespaces: the zygote's uid and gid mapped, the scenario's own /tmp
    and /dev/shm, and nothing else writable but the scenario's working folder: what a step writes elsewhere (/, /run,
    /etc, a parent folder) would outlive it, into later scenarios and students.

    Returns the address-space size before the step (the memory limit is on top of it).
    """
    _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl")  # the zygote is not dumpable; uid_map needs it
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{STUDENT_UID} {uid} 1")  # a student's user id, not "nobody"'s
    _write("/proc/self/gid_map", f"{STUDENT_UID} {gid} 1")
    vm_size = _vm_size()
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    # The scenario's /tmp and /dev/shm, kept by the grader from step to step as a kernel keeps them from cell to
    # cell (fresh for each scenario). In its /tmp, an interpreter or venv that lives under /tmp is bound again, and
    # the grader's mail server's Maildir, read-only, where course.MailServer would have made its own
    # (list_sent_emails and a lookup by key read it, as in the notebook); the grader made their folders.
    kept_tmp = job["scratch"]["/tmp"]
    for prefix in job["under_tmp"]:
        inside = kept_tmp + prefix[len("/tmp"):]
        _check(_libc.mount(prefix.encode(), inside.encode(), None, MS_BIND | MS_REC, None), f"bind {prefix}")
    _check(_libc.mount(job["maildir"].encode(), (kept_tmp + job["tmp_mail"]).encode(), None, MS_BIND | MS_REC, None),
           "bind the maildir")
    job["env"]["COURSE_MAILDIR"] = "/tmp" + job["tmp_mail"]
    for target, kept in job["scratch"].items():
        _check(_libc.mount(kept.encode(), target.encode(), None, MS_BIND | MS_REC, None), f"bind {target}")
    # where they are kept stays out of sight: other scenarios' names, and a second way to the same files
    _check(_libc.mount(b"tmpfs", os.path.dirname(kept_tmp).encode(), b"tmpfs",
                       MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=4k,mode=755"), "cover the kept /tmp")
    workdir = job["workdir"].encode()
    _check(_libc.mount(workdir, workdir, None, MS_BIND | MS_REC, None), "bind the working folder")
    for mount_point in ("/", "/dev", os.path.dirname(job["workdir"])):
        kept = os.statvfs(mount_point).f_flag & KEPT_MOUNT_FLAGS
        _check(_libc.mount(None, mount_point.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept, None),
               f"mount -o remount,ro {mount_point}")
    return vm_size


def _cover_proc(job: Job):
    """The zygote and the other steps' processes stay out of sight: the sandbox's /proc is covered by the one
    the grader wrote for this grading session (autograder.guise: the student's process and a Jupyter server),
    with the machine's own files of the real one, and this step's environment as the student's process's; then the
    driver's own files are covered."""
    proc = f"{DRIVER}/{PROC_FOLDER}"
    job["real_proc"] = os.open("/proc", os.O_PATH | os.O_DIRECTORY)  # for _bind_real_proc; closed by _confine
    _check(_libc.mount(proc.encode(), b"/proc", None, MS_BIND | MS_REC, None), "bind /proc")
    for name in PROC_MACHINE:  # machine-wide, and live as a kernel's: /proc/uptime moves on between two readings
        _bind_real_proc(job, name, f"/proc/{name}")
    _check(_libc.mount(b"tmpfs", DRIVER.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=64k,mode=555"),
           "mount over the driver")
    environ, target = f"{DRIVER}/environ", f"/proc/{job['student_pid']}/environ".encode()
    _write(environ, environ_text(_without_mail(job["env"])))
    _check(_libc.mount(environ.encode(), target, None, MS_BIND, None), "bind the environment")
    _check(_libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None), "mount -o remount,ro environ")
    os.unlink(environ)
    _check(_libc.mount(None, DRIVER.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       None),
           "mount -o remount,ro the driver's folder")


def _without_mail(env: dict) -> dict:
    return {name: value for name, value in env.items() if name not in MAIL_ENV}


def _drop_capabilities():
    """No capability left in the step's user namespace (so no mount, no unmounting /proc's cover)."""
    for capability in range(LAST_CAPABILITY + 1):
        _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # fails for numbers the kernel does not know
    header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")


def _forbid_untraced_calls():
    """The calls that change files where strace (fs_trace.TRACED) does not look fail in the step as on a kernel
    without them (autograder.untraced lists them and why), and ptrace(PTRACE_TRACEME) succeeds as in a notebook.
    A seccomp filter: it holds for every process the step starts, and no one can lift it."""
    program = filter_program(os.uname().machine)
    if program is None:
        return
    filters = (SockFilter * len(program))(*program)
    fprog = SockFprog(len(program), filters)
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "prctl(PR_SET_SECCOMP)")


def _set_limits(limits, vm_size):
    rules = [(resource.RLIMIT_AS, vm_size + limits["memory"]), (resource.RLIMIT_CPU, limits["cpu"]),
             (resource.RLIMIT_FSIZE, limits["file_size"]), (resource.RLIMIT_NOFILE, limits["files"]),
             (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, limits["processes"])]
    for which, value in rules:
        resource.setrlimit(which, (value, value))


def _bind_real_proc(job: Job, source: str, target: str):
    """`source` of the sandbox's real /proc, reached from the descriptor _cover_proc kept, bound over `target`."""
    os.fchdir(job["real_proc"])
    _check(_libc.mount(source.encode(), target.encode(), None, MS_BIND, None), f"bind /proc/{source}")


def _bind_own_fds(job: Job):
    """The student's process's real descriptors at /proc/self/fd, as in a kernel (an O_TMPFILE file is named by
    linkat of /proc/self/fd/N, subprocess lists them to close them): the real /proc's `self/fd` over the cover's
    empty folder. Only this process's own descriptors."""
    _bind_real_proc(job, "self/fd", f"/proc/{os.getpid()}/fd")


def _confine(job, vm_size):
    if job["isolated"]:
        _bind_own_fds(job)
    _keep_own_tasks_and_timers(job)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    # stdin as jupyter_client gives a kernel one: a pipe whose writing end is closed (reads find its end at once), read
    # through the interpreter's own "<stdin>", which ipykernel leaves alone (/dev/null and open(os.devnull) told)
    reading, writing = os.pipe()
    os.dup2(reading, 0)
    os.closerange(3, TASKS_FD)
    os.closerange(TIMERS_FD + 1, 4096)
    raw = io.FileIO(0, "r", closefd=False)
    raw.name = "<stdin>"
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", line_buffering=True)
    sys.stdout, sys.stderr = _streams
    os.chdir(job["workdir"])
    os.environ.clear()
    os.environ.update(_without_mail(job["env"]))
    # A session and process group of its own: kill(0, ...) then reaches only the step's processes, never the
    # zygote, whose group it would otherwise share; without namespaces the grader kills the step by this group.
    os.setsid()
    if job["isolated"]:
        _drop_capabilities()
        _forbid_untraced_calls()
    _set_limits(job["limits"], vm_size)


def _student_process(job: Job, vm_size, plain=plain, describe=describe_exception, make_poster=make_poster,
                     threads_running=_threads_busy, exit_now=_os_exit, monotonic=_monotonic, sleep=_sleep,
                     getitimer=_getitimer, posix_timer_armed=_posix_timer_armed, watch=watch):
    """The process the student's code runs in. Everything the driver needs is bound here, before any of it runs.
    The cells and the steps run in a kernel's event loop (guise.kernel_loop). After the steps the loop runs on, as a
    kernel's does between cells, until every thread the student's code started has ended and nothing is left to run
    later (on the loop, or an alarm); then the process does what a kernel does later anyway and the interpreter's
    hooks cannot show (`_as_a_kernel_ends`), and the threads are waited for again: for job["linger"] seconds in all at
    most. What a thread, a callback, an alarm or those hooks do after a function returned is seen and judged too. What
    is still running or waiting then, or left armed in the interpreter (autograder.armed) to run in a later cell, ends
    with the process here, where in a notebook it would go on: the exit code tells the grader so."""
    post = make_poster(job["socket"], job["token"])
    _confine(job, vm_size)
    _clear_exit_functions()  # only the student's own: the driver's imports registered theirs in the zygote
    for finalizer in list(_finalizers):  # the same for weakref.finalize's
        finalizer.atexit = False
    del _threading_exit_functions[:], _handlers_made[:]  # ... for threading's, and for the handlers made so far
    _note_modules()
    given = []  # for each step so far, the transports of the clients the grader passed in to it
    _reach_the_grader(job, post, plain, given)
    loop = kernel_loop()
    defined, armed = watch(_shell, loop, _loaded)
    try:
        namespace = _define_and_perform(job, post, plain, describe, loop, given, defined)
    except _BaseException:
        post(Endpoint.FAILURE, {"traceback": traceback.format_exc()[-4000:]})
        exit_now(CHILD_FAILED)
    until = monotonic() + job["linger"]
    while True:
        threads = threads_running()
        if (not threads and not holds_work(loop) and getitimer(signal.ITIMER_REAL)[0] <= 0
                and not posix_timer_armed()):
            break
        if monotonic() >= until:
            exit_now(LEFT_RUNNING if threads else LEFT_SCHEDULED)
        try:
            run_loop_for(loop, 0.01)
        except _BaseException:  # a thread closed the loop: nothing on it runs any more, the rest is still watched
            sleep(0.01)
    left_armed = armed()  # before atexit's functions: in a notebook it goes off in the next cell
    if left_armed:
        exit_now(LEFT_ARMED + left_armed)
    _kernel_ending[0] = True
    _as_a_kernel_ends(namespace)
    while threads_running() and monotonic() < until:
        sleep(0.01)
    exit_now(LEFT_RUNNING if threads_running() else LEFT_TOOL_AT_END if _tools_at_end[0] else 0)


def _note_modules():
    """Notes sys.modules' names now (`_zygote_modules`), unless sys.modules is as it was when they were last noted."""
    version = int(_modules_version.read()[0])
    if not VERSIONED or version != _zygote_modules[1]:
        _zygote_modules[:] = [frozenset(_modules), version]


def _as_a_kernel_ends(namespace, fork=_fork, exit_now=_os_exit, run_exit_functions=_run_exit_functions,
                      run_finalizers=_run_finalizers, collect=_collect, threading_exits=_threading_exit_functions,
                      shutdown_logging=_shutdown_logging, handlers=_handlers_made, modules=_modules,
                      zygote_modules=_zygote_modules, modules_version=_modules_version):
    """What a kernel does in later cells and when it shuts down, which runs what the student's code left for then:
    it forks (a shell command, `!ls`), which runs os.register_at_fork's functions (no one can list them); at its end
    it runs threading's exit functions (before it joins the threads), atexit's, logging.shutdown (it flushes and
    closes each handler), then weakref.finalize's (in atexit too), then takes the modules the student's code added out
    of sys.modules and collects them (the interpreter tears the modules down, the last imported first, the cells'
    __main__ among the first imported: what such a module held is finalized while the namespace is still there),
    then drops the namespace and collects it, which runs the __del__ of what it held."""
    try:
        if fork() == 0:
            exit_now(0)
    except OSError:  # out of processes: the student's code used them up
        pass
    for function in reversed(list(threading_exits)):
        try:
            function()
        except _BaseException:
            pass
    run_exit_functions()
    try:
        shutdown_logging(list(handlers))
    except _BaseException:
        pass
    run_finalizers()
    unchanged = VERSIONED and int(modules_version.read()[0]) == zygote_modules[1]
    added = [] if unchanged else [name for name in list(modules) if name not in zygote_modules[0]]
    for name in reversed(added):
        try:
            module = modules.pop(name, None)
            if _issubclass(_type(module), _ModuleType):
                module.__dict__.clear()
        except _BaseException:
            pass
        module = None
    collect()
    namespace.clear()
    collect()


def _reach_the_grader(job: Job, post, plain, given: list):
    """The course's own execute_tool, lookup_effect, make_client and MailServer stay what the notebook has. The
    functions at the bottom of them, the ones that do the work (each tool, the lookup by idempotency key, the
    offline model's answer to a request), hand it to the grader instead, under their own names, signatures and
    source lines: the grader runs the tool, asks its mail server, answers as the model, and records each call."""
    tools = course.tools

    def tool(name, leaf):
        def forward(args, kwargs):
            if _kernel_ending[0]:
                _tools_at_end[0] += 1
            if name in MAIL_TOOLS and _mail_elsewhere(job, post):
                return leaf(*args, **kwargs)
            arguments = _arguments(leaf, args, kwargs) if leaf is not None else dict(kwargs)
            key = arguments.pop("idempotency_key", None)
            try:
                request = {"name": name, "input": plain(arguments), "key": plain(key)}
            except NotPlain as exc:
                request = {"name": name, "input": None, "key": None, "problem": str(exc)}
            output = post(Endpoint.TOOL, request)["output"]
            if output.startswith(ERROR_PREFIX):  # the tool raised: execute_tool words it the same way again
                raise tools.ToolError(output[_len(ERROR_PREFIX):])
            return output
        return forward

    for name, leaf in _TOOL_LEAVES.items():
        tools._TOOL_FUNCTIONS[name] = looking_like(leaf, tool(name, leaf))
        setattr(tools, leaf.__name__, tools._TOOL_FUNCTIONS[name])
    for name in job["agent_tools"]:  # tools of the agents in this scenario's checkpoints that the course lacks:
        agent_tool = looking_like(_AGENT_TOOL, tool(name, None))  # they may have effects, so they take a key
        agent_tool.__name__ = agent_tool.__qualname__ = name
        if name not in tools._TOOL_FUNCTIONS:
            tools._TOOL_FUNCTIONS[name] = agent_tool
            tools._KEYED_TOOLS.add(name)

    def lookup(name, leaf):
        def forward(args, kwargs):
            if name in MAIL_TOOLS and _mail_elsewhere(job, post):
                return leaf(*args, **kwargs)
            return _ask_service(post, plain, name, _arguments(leaf, args, kwargs).get("key"))
        return forward

    for name, leaf in _LOOKUP_LEAVES.items():
        tools._LOOKUPS[name] = looking_like(leaf, lookup(name, leaf))
        setattr(tools, leaf.__name__, tools._LOOKUPS[name])

    def answer(args, kwargs):
        body = _arguments(_ANSWER, args, kwargs).get("body")
        transport = _calling_transport()
        route = ModelRoute.DEFAULT
        if given and any(t is transport for t in given[-1]):
            route = ModelRoute.GIVEN
        elif any(t is transport for passed_in in given for t in passed_in):
            route = ModelRoute.EARLIER
        try:
            request = {"route": route, "body": plain(body)}
        except NotPlain as exc:
            request = {"route": route, "body": None, "problem": str(exc)}
        reply = post(Endpoint.MODEL, request)
        return reply["status"], reply["reply"], reply["request_id"]

    course.model.answer = looking_like(_ANSWER, answer)


def _mail_elsewhere(job: Job, post) -> bool:
    """Whether the student's code pointed the mail settings at a server of its own (a course.MailServer it started):
    in the notebook its emails, and its questions by key, go to that server, not to the one the run began with. They
    go there here too, past the grader, which sees no delivery (counted at its own server) and is told so."""
    port = _environ.get(course.tools.SMTP_PORT_ENV)
    elsewhere = port is not None and port != job["env"].get(course.tools.SMTP_PORT_ENV)
    if elsewhere:
        post(Endpoint.EVENT, {"kind": EventKind.MAIL_ELSEWHERE})
    return elsewhere


def _ask_service(post, plain, name, key, **how):
    """A question to a service by idempotency key, asked of the grader: its answer, or ServiceUnavailable."""
    try:
        request = {"name": plain(name), "key": plain(key), **how}
    except NotPlain as exc:
        raise course.tools.ServiceUnavailable(f"查询的参数不能发给服务：{exc}") from None
    reply = post(Endpoint.LOOKUP, request)
    if "unavailable" in reply:
        raise course.tools.ServiceUnavailable(reply["unavailable"])
    return reply.get("output")


def _agent_tool(**input):
    """A tool of the agent whose checkpoint this is."""


_AGENT_TOOL = _agent_tool


def _calling_transport():
    """The offline client's transport that this model request came through (the grader tells the client it
    passed in from one that make_client() made by it), found on the call stack, not in anything student code set."""
    frame = _getframe(1)
    while frame is not None:
        if frame.f_code is _TRANSPORT_CALL:
            return frame.f_locals.get("self")
        frame = frame.f_back
    return None


def _define_and_perform(job: Job, post, plain, describe, loop, given: list, defined) -> dict:
    """Defines the student's cells, tells `defined` (armed.watch's), and performs the job's steps in `loop`; returns
    the cells' namespace."""
    workdir = Path(job["workdir"])

    def event(wait=True, **payload):
        return post(Endpoint.EVENT, payload, wait)

    def given_client():
        client = _make_client()
        given[-1].append(client._client._transport)
        return client

    def case_lookup(name, key):
        """The lookup(name, key) a step's case passes (lesson 4's recovery_action): its service's answers come from
        the grader, which counts each question where the student's code cannot reach the count."""
        return _ask_service(post, plain, name, key, case=True)

    module = types.ModuleType("__main__")
    noted = int(_modules_version.read()[0]) == _zygote_modules[1]
    as_in_a_kernel(module, job["argv"], job["workdir"], _DRIVER_MODULES, DRIVER if job["isolated"] else None,
                   _shell)
    if noted:  # it put the cells' module in __main__'s place and took the driver's names out, and added no name
        _zygote_modules[1] = int(_modules_version.read()[0])
    namespace = module.__dict__
    # How each cell ended goes to the grader with the step's start. Only once a definition has hung or
    # killed the process does the grader ask for a report before each cell, to learn which one it was.
    cells = []
    codes = [_precompiled(cell) for cell in job["cells"]]  # before any cell runs
    future = [0]  # the __future__ flags the cells so far turned on: a kernel compiles each later cell with them
    for cell, compiled in zip(job["cells"], codes):
        if job["report_cells"]:
            event(kind=EventKind.CELL, name=cell["name"], status=EventStatus.START, cells=cells, wait=False)
            cells = []
        if "ran" in cell:
            kernel_history(namespace, _shell, job["history"][:cell["ran"]])
        filename = cell_file(cell["source"])
        linecache.cache[filename] = (_len(cell["source"]), None, cell["source"].splitlines(True), filename)
        code = cell["source"]
        try:
            run_as_a_cell(loop, _shell, code, lambda: _exec_cell(code, filename, compiled if compiled is not None
                                                                and cell.get("future", 0) == future[0] else None,
                                                                namespace, future))
            cells.append({"name": cell["name"], "status": CellStatus.OK})
        except _BaseException as exc:
            error = describe(exc)
            error["message"] = error["message"].replace(filename, f"<{cell['name']}>")
            cells.append({"name": cell["name"], "status": CellStatus.RAISED, "error": error})
    defined()

    kernel_history(namespace, _shell, job["history"])  # the steps run as the notebook's checks do, after them all
    for name in job.get("standins", ()):
        namespace[name] = _standin(name, post, namespace)

    _environ.update({name: job["env"][name] for name in MAIL_ENV if name in job["env"]})  # `with MailServer():`
    running = job["history"][-1] if job["history"] else ""  # the notebook's cell the steps stand for (its checks)
    for index, step in job["steps"]:  # usually one; a few calls that only decide may share a process
        _step_now[0] = step
        event(kind=EventKind.STEP, index=index, status=EventStatus.START, cells=cells)
        cells = []
        given.append([])
        result = run_as_a_cell(loop, _shell, running,
                               lambda: _perform(step, namespace, workdir, given_client, case_lookup, plain, describe))
        event(kind=EventKind.STEP, index=index, status=EventStatus.DONE, result=result, wait=False)
    return namespace


def _exec_cell(source: str, filename: str, compiled, namespace: dict, future: list):
    """Run a cell's code (`compiled`, or `source` compiled here with the __future__ flags `future[0]` of the cells
    before it), and keep the flags it turns on for the cells after it, as IPython's compiler does."""
    code = compiled if compiled is not None else compile(source, filename, "exec", flags=future[0], dont_inherit=True)
    future[0] |= code.co_flags & FUTURE_FLAGS
    exec(code, namespace)


def _precompiled(cell):
    """The cell's code as the grader compiled it (autograder.sandbox.compiled), if under the name this process gives
    the cell (its pid is the one the grader expected); else None, and the cell is compiled here."""
    if "code" not in cell or cell.get("file") != cell_file(cell["source"]):
        return None
    return _marshal_loads(_from_base64(cell["code"]))


def _argument(value, workdir, given_client, case_lookup):
    if _type(value) is dict and "$path" in value:  # "relative": as written, from the working folder (the cwd)
        relative = value.get("relative")  # True: the str as written; "Path": a relative Path
        if relative == "Path":
            return Path(value["$path"])
        return value["$path"] if relative else workdir / value["$path"]
    if _type(value) is dict and "$python" in value:
        return python_value(value["$python"])
    if _type(value) is dict and "$client" in value:
        return given_client()
    if _type(value) is dict and "$lookup" in value:
        return case_lookup
    return value


def python_value(value):
    """A JSON value with the grader's marks turned into what JSON cannot hold: {"$set": [...]} a set,
    {"$bytes": text} its UTF-8 bytes, {"$tuple_keys": [[[key, ...], value], ...]} a dict keyed by tuples,
    {"$sdk_text_block": text} the SDK's TextBlock (an object)."""
    if _type(value) is list:
        return [python_value(item) for item in value]
    if _type(value) is not dict:
        return value
    if "$set" in value:
        return set(value["$set"])
    if "$bytes" in value:
        return value["$bytes"].encode("utf-8")
    if "$tuple_keys" in value:
        return {tuple(key): python_value(item) for key, item in value["$tuple_keys"]}
    if "$sdk_text_block" in value:
        return anthropic.types.TextBlock(type="text", text=value["$sdk_text_block"])
    return {key: python_value(item) for key, item in value.items()}


def _perform(step, namespace, workdir, given_client, case_lookup, plain, describe) -> dict:
    name = step["name"]
    if name not in namespace:
        return {"status": StepStatus.MISSING}
    if step["kind"] == "value":
        try:
            return {"status": StepStatus.RETURNED, "value": plain(namespace[name])}
        except NotPlain as exc:
            return {"status": StepStatus.UNSUPPORTED, "detail": str(exc)}
    function = namespace[name]
    args = [_argument(a, workdir, given_client, case_lookup) for a in step.get("args", [])]
    kwargs = {k: _argument(v, workdir, given_client, case_lookup) for k, v in step.get("kwargs", {}).items()}
    if step.get("file_size_limit"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (step["file_size_limit"], step["file_size_limit"]))
    started = time.monotonic()
    try:
        value = function(*args, **kwargs)
        if name in RETURNS_A_LIST:  # a generator's code runs here, as part of the step
            value = listed(value)
    except _BaseException as exc:
        result = {"status": StepStatus.RAISED, "error": describe(exc)}
    else:
        try:
            result = {"status": StepStatus.RETURNED, "value": plain(value)}
        except NotPlain as exc:
            result = {"status": StepStatus.UNSUPPORTED, "detail": str(exc)}
        else:
            if step.get("spoil_after"):
                _spoil(value)
    result["seconds"] = time.monotonic() - started
    if step.get("report_args"):
        try:
            # a lookup the grader passed is no data of the student's: it is reported as None
            result["args_after"] = [None if _type(raw) is dict and "$lookup" in raw else plain(a)
                                    for a, raw in zip(args, step.get("args", []))]
        except NotPlain as exc:
            result["args_after_problem"] = str(exc)
    return result


def _spoil(value):
    """Changes every dict and list in `value` in place (a key added, an item appended), as a caller that goes on
    with a loaded checkpoint does (run_agent counts turns, appends messages); `value` passed plain(): no cycle."""
    kind = _type(value)
    if _issubclass(kind, dict):
        inner = [item for _, item in _dict_items(value)]
        _dict_set(value, "changedByCaller", True)
    elif _issubclass(kind, list):
        inner = list(_list_iter(value))
        _list_append(value, "changed by the caller")
    else:
        return
    for item in inner:
        _spoil(item)


def _stand_in_error(reply: dict, default: type) -> Exception:
    """The error of the grader's save/load/reconcile as the notebook's own would raise it: the reference's built-in
    type (a TypeError on the student's data stays a TypeError), else `default` (a full disk: OSError)."""
    kind = _ERRORS.get(reply.get("type"), default)
    try:
        return kind(reply["error"])
    except TypeError:  # a type that takes other arguments (UnicodeDecodeError)
        return default(reply["error"])


def _standin(name, post, namespace):
    """The grader's own save/load/reconcile, so run_agent is judged on its own merits."""

    def default_path(path):
        return os.path.abspath(os.fspath(namespace.get("CHECKPOINT_PATH", "checkpoint.json") if path is None
                                         else path))

    def save_checkpoint(state, path=None):
        try:
            state = plain(state)
        except NotPlain as exc:
            raise TypeError(f"检查点不能存成 JSON：{exc}") from None
        reply = post(f"{Endpoint.STANDIN}/save_checkpoint", {"state": state, "path": default_path(path)})
        if "error" in reply:
            raise _stand_in_error(reply, OSError)

    def load_checkpoint(path=None):
        reply = post(f"{Endpoint.STANDIN}/load_checkpoint", {"path": default_path(path)})
        if "error" in reply:
            raise _stand_in_error(reply, ValueError)
        return reply["state"]

    def reconcile(cp):
        try:
            reply = post(f"{Endpoint.STANDIN}/reconcile", {"cp": plain(cp)})
        except NotPlain as exc:
            raise TypeError(f"检查点不能存成 JSON：{exc}") from None
        if "error" in reply:
            raise _stand_in_error(reply, ValueError)
        reconciled = reply["cp"]
        messages = cp.get("messages") if _issubclass(_type(cp), dict) else None
        new = reconciled.get("messages") if _issubclass(_type(reconciled), dict) else None
        if _step_now[0].get("reconcile_in_place") and _issubclass(_type(messages), list) and \
                _issubclass(_type(new), list) and _len(new) >= _len(messages):
            # as the reference's reconcile does: the result appended to the checkpoint's own messages, cp returned
            for message in new[_len(messages):]:
                _list_append(messages, message)
            for key, value in _dict_items(reconciled):
                if key != "messages":
                    _dict_set(cp, key, value)
            return cp
        return reconciled  # a new dict, as the contract allows: run_agent goes on with what reconcile returns

    standin = {"save_checkpoint": save_checkpoint, "load_checkpoint": load_checkpoint, "reconcile": reconcile}[name]
    own = namespace.get(name)
    if _type(own) is types.FunctionType:  # what the student's run_agent calls looks like the student's own
        return looking_like(own, _bound_as_own(own, standin, STANDIN_ARITY[name]))
    return standin


STANDIN_ARITY = {"save_checkpoint": 2, "load_checkpoint": 1, "reconcile": 1}  # (state, path), (path), (cp)


def _bound_as_own(own, standin, arity: int):
    """A forward for looking_like: the call bound as the student's own function binds it, the stand-in given only what
    the course's signature has. The student's own may take more (save_checkpoint(state, path, indent=None)) or name
    them otherwise (cp for state): run_agent calls it so in the notebook, and it runs there."""
    try:
        signature = inspect.signature(own)
    except (TypeError, ValueError):  # no signature to bind by: the call as it came
        return lambda args, kwargs: standin(*args, **kwargs)
    names = [p.name for p in signature.parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:arity]

    def forward(args, kwargs):
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:  # the student's own would raise too: the call as it came
            return standin(*args, **kwargs)
        if _len(names) < arity or names[0] not in bound:
            return standin(*args, **kwargs)
        return standin(*[bound[n] for n in names if n in bound])
    return forward


# --- the zygote -----------------------------------------------------------------------

def _run_step(job: Job, uid: int, gid: int, status_fd: int):
    """In the zygote's child. With isolation it is pid 1 of the step's new namespaces: it sets them up, hands
    the grader what it needs, forks the student's process and waits for it and for everything the step starts
    (orphans come to pid 1); when it ends, the kernel ends whatever is left. It reports how the student's process
    ended on `status_fd` as soon as it has, so the zygote's report does not depend on what came after; its own exit
    code says whether anything was still running when it stopped watching (LEFT_RUNNING) or nothing was (0)."""
    if not job["isolated"]:
        job["env"]["COURSE_MAILDIR"] = job["maildir"]
        _hand_off(job)
        _student_process(job, _vm_size())
    vm_size = _set_up_namespaces(job, uid, gid)
    _hand_off(job)
    _cover_proc(job)
    student = _fork_with_pid(job["student_pid"])
    if student == 0:  # dumpable, as the uid_map needed: strace, outside, reads its descriptors' paths in /proc
        _student_process(job, vm_size)
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # and the student's process cannot read this one's memory
    signal.signal(INTERRUPT, lambda signum, frame: os.kill(student, signal.SIGINT))  # the grader's interrupt
    os.close(job["real_proc"])
    until = None  # once the student's process has ended: how long what it left behind is still watched
    while True:
        try:
            pid, status = os.waitpid(-1, 0 if until is None else os.WNOHANG)
        except ChildProcessError:
            _os_exit(0)  # nothing left
        if pid == student:
            os.write(status_fd, str(status).encode())
            os.close(status_fd)
            until = time.monotonic() + job["linger"]
        elif pid == 0:
            if time.monotonic() >= until:
                _os_exit(LEFT_RUNNING)
            time.sleep(0.01)


def _hand_off(job: Job):
    """Before any student code: the grader learns this process's pid (the kernel names it, from the socket)
    and receives the step's SMTP port, listened on here, in the step's own network, and served from outside.
    Every connection that any code of the step makes to it reaches the grader's mail server, whatever path
    it takes (execute_tool, course.tools.send_email or smtplib of its own), and is counted there."""
    if job["isolated"]:  # a new network namespace has only a loopback interface, and it is down
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
            flags = struct.unpack("16sH14x", fcntl.ioctl(control, SIOCGIFFLAGS, struct.pack("16sH14x", b"lo", 0)))[1]
            fcntl.ioctl(control, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))
    listener = socket.create_server(("127.0.0.1", 0))
    job["env"]["COURSE_SMTP_PORT"] = str(listener.getsockname()[1])
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(60)
        connection.connect(job["handoff"])
        socket.send_fds(connection, [job["token"].encode()], [listener.fileno()])
        connection.recv(1)  # the grader holds it now: the step may start
    listener.close()


def _fork_with_pid(wanted: int) -> int:
    """fork(), the child getting pid `wanted` (clone3's set_tid, Linux 5.5; this process, pid 1 of the
    namespace, has the capability it needs). Where that cannot be done, an ordinary fork()."""
    pids = (ctypes.c_int * 1)(wanted)
    arguments = struct.pack("=11Q", 0, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, ctypes.addressof(pids), 1, 0)
    buffer = ctypes.create_string_buffer(arguments, len(arguments))
    ctypes.pythonapi.PyOS_BeforeFork()
    pid = _libc.syscall(SYS_CLONE3, buffer, ctypes.c_size_t(len(arguments)))
    if pid == 0:
        ctypes.pythonapi.PyOS_AfterFork_Child()
        return 0
    ctypes.pythonapi.PyOS_AfterFork_Parent()
    return pid if pid > 0 else os.fork()


def _describe_status(status: int) -> dict:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit_code": os.WEXITSTATUS(status)}


def _left_running(student: int, first: int | None) -> list:
    """What was still running when the watch after the steps ran out (protocol.Left), from the exit statuses of the
    student's process and of pid 1 (`first`: None without isolation, or when pid 1 ended before the student's process,
    killed by the grader). pid 1 ending any other way than exit code 0 after the student's process (a signal its
    processes sent it, say) also took with it whatever they were doing."""
    code = os.WEXITSTATUS(student) if os.WIFEXITED(student) else None
    left = ([Left.THREADS] if code == LEFT_RUNNING else [Left.SCHEDULED] if code == LEFT_SCHEDULED
            else [Left.TOOL_AT_END] if code == LEFT_TOOL_AT_END else [])
    if code is not None and LEFT_ARMED < code < LEFT_ARMED + (1 << len(ARMED)):
        left = armed_kinds(code - LEFT_ARMED)
    if first is not None and not (os.WIFEXITED(first) and os.WEXITSTATUS(first) == 0):
        left.append(Left.PROCESSES)
    return left


def _mark(job_id: str, where: str):
    """A path that does not exist, opened so that strace records where a step begins or ends."""
    try:
        os.close(os.open(f"{MARK_PREFIX}{job_id}-{where}", os.O_RDONLY))
    except OSError:
        pass


def _into_huge_pages():
    """The zygote's memory (some 80 MB, most of it the SDK's objects) in 2 MiB pages where they fit. Each step
    forks it twice and ends both copies; both cost one page-table entry per page, 512 times fewer entries
    for huge pages. MADV_COLLAPSE (Linux 6.1) does it whatever the system's transparent huge page setting, short
    of "never"; where it cannot, nothing changes but the speed. Once, at the start: the zygote's own writes while a
    step shares its memory split a few of them into small pages again, the same ones at every step, and making
    them whole after each step cost more than it saved (measured: docs/design.md, 速度).
    """
    with open("/proc/self/maps") as maps:
        private = [line.split() for line in maps]
    for fields in private:
        if fields[1] == "rw-p" and fields[4] == "0":  # anonymous memory the process writes: the heap, the arenas
            start, end = (int(address, 16) for address in fields[0].split("-"))
            for page in range(-(-start // HUGE_PAGE) * HUGE_PAGE, end - HUGE_PAGE + 1, HUGE_PAGE):
                _libc.madvise(ctypes.c_void_p(page), ctypes.c_size_t(HUGE_PAGE), MADV_COLLAPSE)


def zygote(socket_path: str, isolated: bool):
    global _shell, _streams, _loaded
    course.model.warm_up()  # the SDK's lazy imports and schemas, once, before any fork
    _shell = kernel_shell(tempfile.gettempdir())
    _streams = kernel_streams()
    _import_machinery.FileLoader.get_data = _get_data
    _loaded = Modules(also=_streams, shell=_shell)
    # Never collected in a step (a collection there scanned, and so copied, the zygote's whole heap: some 200 ms for a
    # full one, the one a step's end makes as a shutting-down interpreter does; 1 to 4 ms frozen)
    gc.freeze()
    _into_huge_pages()
    make_poster(socket_path, ZYGOTE_TOKEN)(Endpoint.HELLO, {})  # the grader learns the zygote's pid from the socket
    if isolated:  # no step process can read or write the zygote's memory (strace, outside, still can)
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    uid, gid = os.getuid(), os.getgid()
    _note_modules()
    for line in sys.stdin:
        job = json.loads(line)
        _mark(job["id"], "begin")
        status_read, status_write = os.pipe()
        pid = _clone_into_namespaces() if job["isolated"] else os.fork()
        if pid == 0:
            try:
                os.close(status_read)
                _run_step(job, uid, gid, status_write)
            except BaseException:
                traceback.print_exc()
                _os_exit(CHILD_FAILED)
            _os_exit(0)
        os.close(status_write)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        reported = os.read(status_read, 32)  # the student's process, if pid 1 saw it end before it was killed
        os.close(status_read)
        left = _left_running(int(reported), status) if reported else _left_running(status, None)
        status = int(reported) if reported else status
        _mark(job["id"], "end")
        out.write(json.dumps({"pid": pid, "status": {**_describe_status(status), "left": left}}) + "\n")
        out.flush()


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    zygote(sys.argv[1], sys.argv[2:] == ["isolated"])
