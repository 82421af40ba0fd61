"""The sandbox side of grading: a zygote that forks one child per scenario, and the
driver that runs inside each child.

`autograder.sandbox` starts this module as `python -m autograder.child`. It imports the
course runtime once (importing anthropic takes seconds; forking takes milliseconds),
then reads jobs, one JSON object per line, from stdin. For each job it forks a child
that leaves the zygote's process group, drops root, lowers its resource limits, defines
the student's code and performs the job's steps. The zygote answers on stdout with the
child's pid and, once the child is gone, its exit status.

Nothing the child says is a verdict. It sends plain data to the grader over HTTP
(what a function returned or raised, which files it opened), it asks the grader to run
every tool and to answer every model call, and the grader judges. Student code runs in
the child, so it can lie about anything the child reports; the grader therefore takes
from the child only what the student's functions control anyway (return values,
exceptions), and observes effects (tool calls, model calls, emails, files) itself.
"""
import ctypes
import _socket
from _json import encode_basestring_ascii as _c_encode_basestring_ascii
from _json import make_encoder as _c_make_encoder
import json
import os
import pwd
import resource
import signal
import sys
import time
import traceback
import types
from pathlib import Path

# The standard library a student may import, and what gets loaded lazily later (the idna codec on the
# SDK's first request, _strptime on the first strptime): loaded once here, so children start fast and
# still have them after dropping to `nobody`, who may not be able to read the interpreter's files.
import argparse, collections, contextlib, copy, csv, dataclasses, datetime, decimal, difflib  # noqa: E401,F401
import encodings.idna, encodings.utf_8_sig, fnmatch, fractions, functools, glob, gzip, hashlib  # noqa: E401,F401
import heapq, html, itertools, math, mmap, pickle, pprint, queue, random, re, secrets, shlex  # noqa: E401,F401
import shutil, smtplib, sqlite3, statistics, string, _strptime, tempfile, textwrap, timeit  # noqa: E401,F401
import typing, unicodedata, uuid, zipfile, zoneinfo  # noqa: E401,F401

import anthropic
import httpx2

import course
import course.mail
import course.model
import course.tools

PR_SET_CHILD_SUBREAPER = 36
CHILD_FAILED = 70  # exit code of a child whose driver failed; the traceback is in job["error_file"]
# Every SDK client builds a TLS context (reading the CA bundle) even for the grader's plain-HTTP address:
# built once here, shared by the clients of every child.
_TLS = httpx2.create_ssl_context()

# Captured before any student code runs: the driver keeps using these even if the
# student rebinds the builtins or monkeypatches modules.
_type, _issubclass, _len, _id = type, issubclass, len, id
_str_copy, _int_copy, _float_copy = str.__str__, int.__index__, float.__float__
_dict_items, _list_iter, _tuple_iter = dict.items, list.__iter__, tuple.__iter__
_ValueError, _BaseException = ValueError, BaseException
_json_loads = json.loads
_Socket, _AF_INET, _SOCK_STREAM = _socket.socket, _socket.AF_INET, _socket.SOCK_STREAM
_real_fsync, _real_fdatasync = os.fsync, os.fdatasync
_os_exit, _readlink, _abspath, _fsdecode = os._exit, os.readlink, os.path.abspath, os.fsdecode

MAX_NODES = 200_000
MAX_DEPTH = 200
MESSAGE_LIMIT = 2000


class NotPlain(Exception):
    """A value that JSON (and so a checkpoint) cannot hold."""


def plain(value):
    """A copy of `value` made only of dict, list, str, int, float, bool and None.

    Subclasses are copied through their base type's own methods, so an object that
    overrides __eq__, __str__ or items() cannot change what the grader receives.
    """
    budget = [MAX_NODES]
    active = set()

    def convert(item, depth):
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            raise NotPlain("数据太大或嵌套太深")
        kind = _type(item)
        if item is None or kind is bool:
            return item
        if _issubclass(kind, str):
            return _str_copy(item)
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
                        result[_str_copy(key)] = convert(val, depth + 1)
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


def make_poster(server: str, token: str):
    """post(endpoint, payload) -> reply: JSON over HTTP to this scenario's grader endpoints.

    Built from the C socket and the C JSON encoder captured at import, so patching
    http.client, json or this module does not change what reaches the grader.
    """
    host, port = server.rsplit(":", 1)
    address, prefix = (host, int(port)), f"/s/{token}/"

    def post(endpoint: str, payload) -> dict:
        body = _encode(payload).encode("utf-8")
        head = (f"POST {prefix}{endpoint} HTTP/1.1\r\nHost: grader\r\nContent-Type: application/json\r\n"
                f"Content-Length: {_len(body)}\r\nConnection: close\r\n\r\n").encode("ascii")
        connection = _Socket(_AF_INET, _SOCK_STREAM)
        connection.settimeout(120)
        chunks = []
        try:
            connection.connect(address)
            connection.sendall(head + body)
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            connection.close()
        content = b"".join(chunks).partition(b"\r\n\r\n")[2]
        return _json_loads(content) if content else {}

    return post


def _encode(value) -> str:
    return "".join(_c_iterencode(value, 0))


def _not_json(value):
    raise TypeError(f"{_type(value).__name__} 不能编码成 JSON")


_c_iterencode = _c_make_encoder(None, _not_json, _c_encode_basestring_ascii, None, ":", ",", False, False, True)


# --- which files a save touches ------------------------------------------------------

def _fd_path(fd) -> str:
    try:
        number = fd if _issubclass(_type(fd), int) else fd.fileno()
        return _readlink(f"/proc/self/fd/{number}")
    except Exception:
        return "?"


def _io_recorder():
    """(start, stop, audit_hook, wrap_sync): record file writes, renames and fsyncs between start and stop.

    The record lives in this closure, not in a module attribute.
    """
    holder = [None]

    def start():
        holder[0] = []

    def stop() -> list:
        log, holder[0] = holder[0], None
        return log or []

    def audit(event, args):
        log = holder[0]
        if log is None:
            return
        try:
            if event == "open":
                path, mode, flags = args
                if path is None or _issubclass(_type(path), int):
                    return
                if _issubclass(_type(mode), str):
                    writing = any(c in mode for c in "wax+")
                else:
                    writing = bool(flags & (os.O_WRONLY | os.O_RDWR))
                if writing:
                    log.append({"op": "write", "path": _abspath(_fsdecode(path))})
            elif event == "os.rename":
                log.append({"op": "rename", "src": _abspath(_fsdecode(args[0])),
                            "dst": _abspath(_fsdecode(args[1]))})
        except Exception:
            pass

    def wrap_sync(real, op):
        def sync(fd):
            log = holder[0]
            if log is not None:
                log.append({"op": op, "path": _fd_path(fd)})
            return real(fd)
        sync.__name__ = real.__name__
        return sync

    return start, stop, audit, wrap_sync


_start_io, _stop_io, _audit, _wrap_sync = _io_recorder()


# --- the child ------------------------------------------------------------------------

class _GraderMailServer:
    """Stands in for course.MailServer while grading: every email goes to the grader's server."""

    def __init__(self, *args, **kwargs):
        pass

    def start(self):
        return self

    def stop(self):
        pass

    __enter__ = start

    def __exit__(self, *exc_info):
        pass

    def received(self):
        return []

    def count(self):
        return 0


def _set_limits(job):
    limits = job["limits"]
    with open("/proc/self/status") as status:
        vm_size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    rules = [(resource.RLIMIT_AS, vm_size + limits["memory"]), (resource.RLIMIT_CPU, limits["cpu"]),
             (resource.RLIMIT_FSIZE, limits["file_size"]), (resource.RLIMIT_NOFILE, 256), (resource.RLIMIT_CORE, 0)]
    if job.get("uid") is not None:
        rules.append((resource.RLIMIT_NPROC, limits["processes"]))
    for which, value in rules:
        resource.setrlimit(which, (value, value))


def _drop_privileges(job):
    if job.get("uid") is None:
        return
    os.setgroups([])
    os.setgid(job["gid"])
    os.setuid(job["uid"])


def _isolate(job):
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, 4096)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr = open(os.devnull, "w")
    os.chdir(job["workdir"])
    os.environ.clear()
    os.environ.update(job["env"])
    _set_limits(job)
    _drop_privileges(job)


def _child(job, plain=plain, describe=describe_exception, make_poster=make_poster, perform=None):
    # Everything the driver needs is bound here, before any student code runs.
    _isolate(job)
    perform = perform or _perform
    post = make_poster(job["server"], job["token"])
    workdir = Path(job["workdir"])

    def event(**payload):
        return post("event", payload)

    def grader_client(offline=None, given=False):
        base = f"http://{job['server']}/s/{job['token']}" + ("/given" if given else "")
        return anthropic.Anthropic(base_url=base, api_key="grader",
                                   max_retries=0, timeout=60, http_client=anthropic.DefaultHttpxClient(verify=_TLS))

    def execute_tool(name, input):
        try:
            request = {"name": plain(name), "input": plain(input)}
        except NotPlain as exc:
            request = {"name": _str_copy(name) if _issubclass(_type(name), str) else "（不是字符串）",
                       "input": None, "problem": str(exc)}
        return post("tool", request)["output"]

    # The student's code meets the grader's tools, model and mail server under the course's names.
    course.execute_tool = course.tools.execute_tool = execute_tool
    course.make_client = course.model.make_client = grader_client
    course.MailServer = course.mail.MailServer = _GraderMailServer
    os.fsync = _wrap_sync(_real_fsync, "fsync")
    os.fdatasync = _wrap_sync(_real_fdatasync, "fdatasync")

    module = types.ModuleType("submission")
    sys.modules["submission"] = module
    namespace = module.__dict__
    for cell in job["cells"]:
        event(kind="cell", name=cell["name"], status="start")
        try:
            exec(compile(cell["source"], f"<{cell['name']}>", "exec"), namespace)
            event(kind="cell", name=cell["name"], status="ok")
        except _BaseException as exc:
            event(kind="cell", name=cell["name"], status="raised", error=describe(exc))

    for name in job.get("standins", ()):
        namespace[name] = _standin(name, post, namespace)

    for index, step in enumerate(job["steps"]):
        if index < job["first_step"]:
            continue
        event(kind="step", index=index, status="start")
        event(kind="step", index=index, status="done", result=perform(step, namespace, workdir, grader_client))
    event(kind="end")


def _argument(value, workdir, grader_client):
    if _type(value) is dict and "$path" in value:
        return workdir / value["$path"]
    if _type(value) is dict and "$client" in value:
        return grader_client(given=True)
    return value


def _perform(step, namespace, workdir, grader_client, plain=plain, describe=describe_exception,
             start_io=_start_io, stop_io=_stop_io) -> dict:
    name = step["name"]
    if name not in namespace:
        return {"status": "missing"}
    if step["kind"] == "value":
        try:
            return {"status": "returned", "value": plain(namespace[name])}
        except NotPlain as exc:
            return {"status": "unsupported", "detail": str(exc)}
    function = namespace[name]
    args = [_argument(a, workdir, grader_client) for a in step.get("args", [])]
    kwargs = {k: _argument(v, workdir, grader_client) for k, v in step.get("kwargs", {}).items()}
    if step.get("file_size_limit"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (step["file_size_limit"], step["file_size_limit"]))
    start_io()
    started = time.monotonic()
    try:
        value = function(*args, **kwargs)
    except _BaseException as exc:
        result = {"status": "raised", "error": describe(exc)}
    else:
        try:
            result = {"status": "returned", "value": plain(value)}
        except NotPlain as exc:
            result = {"status": "unsupported", "detail": str(exc)}
    io_log = stop_io()
    result["seconds"] = time.monotonic() - started
    try:  # shim until the outside record (strace) lands: every step's file operations
        result["io"] = plain(io_log[:500])
    except NotPlain:
        result["io"] = []
    if step.get("report_args"):
        try:
            result["args_after"] = [plain(a) for a in args]
        except NotPlain as exc:
            result["args_after_problem"] = str(exc)
    return result


def _standin(name, post, namespace):
    """The grader's own save/load/reconcile, so run_agent is judged on its own merits."""

    def default_path(path):
        return _abspath(os.fspath(namespace.get("CHECKPOINT_PATH", "checkpoint.json") if path is None else path))

    def save_checkpoint(state, path=None):
        try:
            state = plain(state)
        except NotPlain as exc:
            raise TypeError(f"检查点不能存成 JSON：{exc}") from None
        reply = post("standin/save_checkpoint", {"state": state, "path": default_path(path)})
        if "error" in reply:
            raise OSError(reply["error"])

    def load_checkpoint(path=None):
        reply = post("standin/load_checkpoint", {"path": default_path(path)})
        if "error" in reply:
            raise ValueError(reply["error"])
        return reply["state"]

    def reconcile(cp):
        try:
            reply = post("standin/reconcile", {"cp": plain(cp)})
        except NotPlain as exc:
            raise TypeError(f"检查点不能存成 JSON：{exc}") from None
        if "error" in reply:
            raise ValueError(reply["error"])
        cp.clear()
        cp.update(reply["cp"])
        return cp

    return {"save_checkpoint": save_checkpoint, "load_checkpoint": load_checkpoint, "reconcile": reconcile}[name]


# --- the zygote -----------------------------------------------------------------------

def _reap_orphans():
    """Kill whatever the child left behind (it was re-parented to us, the subreaper)."""
    me = str(os.getpid())
    for _ in range(100):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = stat.read().rsplit(")", 1)[1].split()[1]
            except (OSError, IndexError):
                continue
            if parent == me:
                found = True
                try:
                    os.kill(int(entry), signal.SIGKILL)
                except OSError:
                    pass
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not found:
            return
        time.sleep(0.01)


def _report_failure(job):
    """The driver itself failed (not student code, which runs inside try blocks): leave the traceback."""
    try:
        with open(os.path.join(job["workdir"], job["error_file"]), "w") as file:
            file.write(traceback.format_exc())
    except BaseException:
        pass


def _describe_status(status: int) -> dict:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit_code": os.WEXITSTATUS(status)}


def _warm_up_sdk():
    """Two requests to the offline model, one answered with text and a tool_use and one refused with 400.
    The SDK loads its lazy imports and builds the pydantic schemas of the response and of the error on
    first use; done here, before any fork, children do not each spend most of their time on it."""
    client = course.model.make_client(offline=True)
    task = [{"role": "user", "content": "帮我把结论发邮件通知团队"}]
    reply = client.messages.create(**course.model.request_params(), messages=task)
    unanswered = task + [course.model.assistant_message(reply), {"role": "user", "content": "继续"}]
    try:
        client.messages.create(**course.model.request_params(), messages=unanswered)
    except anthropic.BadRequestError:
        pass


def zygote():
    sys.addaudithook(_audit)  # records only between _start_io() and _stop_io()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    _warm_up_sdk()
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                _child(job)
            except BaseException:
                _report_failure(job)
                _os_exit(CHILD_FAILED)
            _os_exit(0)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        _reap_orphans()
        out.write(json.dumps({"pid": pid, "status": _describe_status(status)}) + "\n")
        out.flush()


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    try:
        zygote()
    finally:  # stdin closed: the grader is gone (even if it was killed); its scratch folder goes too
        if len(sys.argv) > 1:
            shutil.rmtree(sys.argv[1], ignore_errors=True)
