"""What the student's code finds where it might look to tell the grader from a notebook's kernel.

Inside the sandbox (autograder.child imports it, bound read-only beside it). A student's code may look at
the functions it calls, at `__name__`, `sys.argv`, its pid and its parent's, its environment and /proc; the
grader gives it what a Jupyter kernel gives it there, so that no answer can depend on being graded:

- `looking_like(original, forward)`: a stand-in with the original's name, module, documentation, signature
  and source lines (what the course's tools, lookup and offline model become, the grader doing their work);
- `kernel_shell()`, made once in the zygote: an IPython shell, as a kernel has one, so that `display`,
  `get_ipython()` and the magics and `!` commands of a cell (autograder.notebook_code.python_source) work;
- `kernel_streams()`: sys.stdout and sys.stderr, ipykernel's OutStream as in a kernel;
- `kernel_loop()`, `run_as_a_cell(...)`, `run_loop_for(...)`, `holds_work(...)`: the asyncio event loop a kernel runs
  each cell in, between IPython's events before and after a cell, and that goes on running between cells;
- `as_in_a_kernel(...)`: the cells' code is `__main__`, sys.argv and sys.orig_argv are ipykernel's, IPython's names
  are there;
- `cell_file(source, pid)`: where a kernel says a cell's code comes from;
- `proc_entries(...)`: a /proc for the steps: the student's process and its parent (pid 1, a Jupyter
  server), with the machine's own cpuinfo, meminfo, uptime and the like (each step binds the live ones).
- `runtime_files(...)`: the Jupyter runtime folder sys.argv names, with the kernel's connection file in it
  and what the Jupyter server writes beside it.

What stays different, and why, is in docs/grading.md (a determined reader of bytecode or of every /proc file
can still tell; the names above are the places a submission is known to look).
"""
import __future__
import asyncio
import base64
import inspect
import json
import os
import random
import secrets
import sys
import types
import uuid
import zlib
from pathlib import Path

STUDENT_UID = 1000  # the user a step's processes run as, in their own user namespace
STUDENT_NAME = "student"  # that user's name: in /etc/passwd, and USER and LOGNAME in the kernel's environment
SERVER_PORT = 8888  # JupyterLab's


def etc_files(hostname: str) -> dict:
    """/etc's accounts and hosts as on the student's own machine (the sandbox's /etc has neither): pwd.getpwuid(
    os.getuid()) and getpass.getuser() name the user instead of raising KeyError, and "localhost" and the machine's
    own name resolve, as in the notebook."""
    user = f"{STUDENT_NAME}:x:{STUDENT_UID}:{STUDENT_UID}:{STUDENT_NAME}:/home/{STUDENT_NAME}:/bin/bash"
    nobody = "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"
    return {"passwd": f"root:x:0:0:root:/root:/bin/bash\n{user}\n{nobody}\n",
            "group": f"root:x:0:\n{STUDENT_NAME}:x:{STUDENT_UID}:\nnogroup:x:65534:\n",
            "hosts": f"127.0.0.1\tlocalhost\n127.0.1.1\t{hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n"}
STUDENT_PIDS = (1000, 60000)  # where a notebook kernel's pid usually is: the student's process gets one of them
PROC_FOLDER = "proc"  # where, beside the driver, the grading session's /proc is bound into the sandbox
# the machine's own, machine-wide (no process's secret): each step binds the real, live ones (child._cover_proc), as
# a kernel's move on from one reading to the next
STAT_STARTTIME = 19  # /proc/<pid>/stat's field 22, counted from the state (field 3) on
PROC_MACHINE = ("cpuinfo", "meminfo", "version", "loadavg", "uptime", "stat", "filesystems")
STATUS_PIDS = ("Tgid", "Pid", "NStgid", "NSpid", "NSpgid", "NSsid")


def looking_like(original, forward):
    """A function that hands its call, as (args, kwargs), to `forward`, and that inspection cannot tell from
    `original`: the same name, qualified name, module, globals, defaults, documentation, annotations, signature and
    source lines (inspect.getsource and tracebacks show the original's). Only its closure and its bytecode differ."""
    def stand_in(*args, **kwargs):
        return forward(args, kwargs)

    code = original.__code__
    renamed = {"co_qualname": code.co_qualname} if hasattr(code, "co_qualname") else {}  # Python 3.11+
    # its code reads no global: the original's module's namespace serves (`forward` is in its closure)
    stand_in = types.FunctionType(stand_in.__code__.replace(co_name=code.co_name, co_filename=code.co_filename,
                                                            co_firstlineno=code.co_firstlineno, **renamed),
                                  original.__globals__, code.co_name, original.__defaults__, stand_in.__closure__)
    stand_in.__kwdefaults__ = None if original.__kwdefaults__ is None else dict(original.__kwdefaults__)
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
        setattr(stand_in, attribute, getattr(original, attribute))
    stand_in.__annotations__ = dict(original.__annotations__)
    stand_in.__signature__ = inspect.signature(original)
    return stand_in


def kernel_argv(executable: str, home: str) -> list:
    """sys.argv of a Jupyter kernel started from `executable`'s environment: ipykernel's launcher and a
    connection file in the runtime folder under `home`."""
    packages = os.path.join(os.path.dirname(os.path.dirname(executable)), "lib",
                            f"python{sys.version_info.major}.{sys.version_info.minor}", "site-packages")
    return [os.path.join(packages, "ipykernel_launcher.py"), "-f",
            f"{home}/.local/share/jupyter/runtime/kernel-{uuid.uuid4()}.json"]


def kernel_command(executable: str, argv: list) -> list:
    """The command line of a kernel whose sys.argv is `argv` (`kernel_argv`), as JupyterLab's server starts it from
    its `executable`: its /proc/<pid>/cmdline, and its sys.orig_argv."""
    return [executable, "-m", "ipykernel_launcher", *argv[1:]]


def runtime_files(argv: list, root_dir: str) -> dict:
    """What a notebook kernel finds in the Jupyter runtime folder its `argv` (`kernel_argv`) names: name -> (text,
    mode). The connection file there, as jupyter_client writes it (five ports, ip, key, transport, signature_scheme,
    kernel_name; only its owner reads it), and what JupyterLab's server writes beside it: its info file (it is pid
    1, serving `root_dir`), the page that opens it in a browser and its cookie secret."""
    import importlib.metadata  # here, in the grader: not among a kernel's modules in the sandbox
    import importlib.util

    import jinja2

    ports = random.SystemRandom().sample(range(32768, 61000), 5)
    connection = dict(zip(("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"), ports))
    connection.update(ip="127.0.0.1", key=f"{secrets.token_hex(4)}-{secrets.token_hex(12)}", transport="tcp",
                      signature_scheme="hmac-sha256", kernel_name="python3")
    token, url = secrets.token_hex(24), f"http://localhost:{SERVER_PORT}/"
    server = {"base_url": "/", "hostname": "localhost", "password": False, "pid": 1, "port": SERVER_PORT,
              "root_dir": root_dir, "secure": False, "sock": "", "token": token, "url": url,
              "version": importlib.metadata.version("jupyter_server")}
    page = Path(importlib.util.find_spec("jupyter_server").submodule_search_locations[0], "templates",
                "browser-open.html")
    opening = jinja2.Environment(autoescape=True).from_string(page.read_text(encoding="utf-8"))
    return {os.path.basename(argv[argv.index("-f") + 1]): (json.dumps(connection, indent=2), 0o600),
            "jpserver-1.json": (json.dumps(server, indent=2, sort_keys=True), 0o600),
            "jpserver-1-open.html": (opening.render(open_url=f"{url}lab?token={token}", base_url="/"), 0o644),
            "jupyter_cookie_secret": (base64.encodebytes(secrets.token_bytes(32)).decode("ascii"), 0o600)}


def write_runtime(folder: str, files: dict):
    """`runtime_files` under `folder`, which is as Jupyter makes it: its owner's only, sticky."""
    for name, (text, mode) in files.items():
        with open(os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "w",
                  encoding="utf-8") as file:
            file.write(text)
    os.chmod(folder, 0o1700)


def _named_as(cls, original):
    """`cls` under `original`'s name and module: what type(x).__name__ and __module__ say of its instances."""
    cls.__name__, cls.__qualname__, cls.__module__ = original.__name__, original.__qualname__, original.__module__
    return cls


def kernel_shell(ipython_dir: str):
    """An IPython shell as a notebook's kernel has one: an ipykernel ZMQInteractiveShell (by class, name and
    module), `display` and `__IPYTHON__` among the builtins, and `get_ipython`, `exit` and `quit`, as while a cell
    runs; its magics run in the namespace `as_in_a_kernel` gives it. What it displays goes nowhere (a kernel sends
    it to the front end). No history is kept and no profile folder made; `ipython_dir` must exist.

    Made as ipykernel makes it, once, in the zygote: by an IPythonKernel (its `kernel` and `parent`), whose parent is
    the process's IPKernelApp (IPKernelApp.initialized(), ipykernel.connect.get_connection_file(), the app's
    patch_io, which puts its own faulthandler.enable and register in place). The app is never initialized nor
    started: no socket, no thread, no connection file written (the grader wrote it: `runtime_files`)."""
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.profiledir import ProfileDir
    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.kernelapp import IPKernelApp
    from ipykernel.zmqshell import ZMQInteractiveShell
    from jupyter_client.session import Session
    from traitlets import Type
    from traitlets.config import Config

    class KernelShell(ZMQInteractiveShell):
        displayhook_class = Type(DisplayHook)  # no kernel session to publish on
        display_pub_class = Type(DisplayPublisher)

        def init_ipython_dir(self, ipython_dir):  # the kernel gives none: not the zygote's $HOME/.ipython
            self.ipython_dir = ipython_dir or _shell_folder[0]

        def enable_gui(self, gui=None):  # %matplotlib inline, as in a notebook: no event loop to start
            pass

        def enable_matplotlib(self, gui=None):  # nothing is drawn when grading: no import, no font cache in /tmp
            return "inline", "module://matplotlib_inline.backend_inline"

        def _showtraceback(self, etype, evalue, stb):  # what an event's callback raised: a kernel sends it on
            self._last_traceback = stb

    config = Config()
    config.HistoryManager.enabled = False
    _shell_folder[0] = ipython_dir
    app = IPKernelApp.instance(config=config)
    app.session = Session(parent=app)
    kernel = IPythonKernel(parent=app, session=app.session, shell_class=_named_as(KernelShell, ZMQInteractiveShell),
                           profile_dir=ProfileDir(), log=app.log)
    app.kernel, app.shell = kernel, kernel.shell
    app.shell.configurables.append(app)  # IPKernelApp.init_shell
    app.patch_io()
    shell = kernel.shell
    shell.builtin_trap.activate()
    # Its display formatters, a default IPython makes when they are first asked for (by a kernel's first output), made
    # here once: else each step's process made its own when the armed check listed them (some 2 ms a step)
    shell.display_formatter.formatters
    return shell


_shell_folder = [None]  # kernel_shell's ipython_dir


def kernel_streams() -> tuple:
    """(stdout, stderr) as a kernel's: ipykernel OutStreams (by class, name and module), with the kernel's session
    and an IOPubThread (never started: no socket, no thread), whose writes go nowhere here (a kernel sends them to
    the front end)."""
    import contextvars
    import threading
    from collections import deque

    from ipykernel.iostream import IOPubThread, OutStream
    from ipykernel.kernelapp import IPKernelApp

    session = IPKernelApp.instance().session if IPKernelApp.initialized() else None
    pub_thread = IOPubThread.__new__(IOPubThread)  # its __init__ makes an event loop and sockets
    pub_thread.__dict__.update(socket=None, session=session, _stopped=False, _master_pid=os.getpid(),
                               _pipe_flag=True, _local=threading.local(), _events=deque(), _event_pipes={},
                               _event_pipe_gc_seconds=10, _event_pipe_gc_task=None,
                               thread=threading.Thread(name="IOPub", daemon=True))

    class QuietOutStream(OutStream):
        def __init__(self, name: str):  # no IOPub thread running, no descriptor watched
            self.session, self.pub_thread, self.name, self.topic = session, pub_thread, name, b"stream." + name.encode()
            self._parent_header = contextvars.ContextVar("parent_header")
            self._parent_header.set({})
            self._parent_header_global, self._master_pid, self.echo, self._isatty = {}, os.getpid(), None, False
            self._flush_pending = self._subprocess_flush_pending = False
            self._original_stdstream_copy = 1 if name == "stdout" else 2  # fileno(), as a kernel's capture gives

        def write(self, string: str) -> int:
            if not isinstance(string, str):
                raise TypeError(f"write() argument must be str, not {type(string)}")
            return len(string)

        def writelines(self, sequence):
            for string in sequence:
                self.write(string)

        def flush(self):
            pass

        def close(self):
            pass

        @property
        def closed(self) -> bool:
            return False

    _named_as(QuietOutStream, OutStream)
    return QuietOutStream("stdout"), QuietOutStream("stderr")


def kernel_loop():
    """The asyncio event loop a kernel (ipykernel 6 and later) runs its cells in, the main thread's: a cell's code finds
    it running (asyncio.get_running_loop(), tornado's IOLoop.current()), and what it schedules there runs between
    cells. Made in the student's process, after its descriptors were closed."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    return loop


def run_as_a_cell(loop, shell, source: str, run):
    """run(), as a kernel runs a cell of `source`: in a task of `loop` (callbacks already due there run first), after
    IPython's pre_execute and pre_run_cell events and before its post_execute and post_run_cell ones, with the
    arguments InteractiveShell.run_cell gives them. Returns what run() returned, or raises what it raised."""
    from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult

    info = ExecutionInfo(source, store_history=True, silent=False, shell_futures=True, cell_id=None)
    info.transformed_cell = source  # IPython 8.x's keyword; older IPython (as on Python 3.10) has no such argument
    result = ExecutionResult(info)
    result.execution_count = shell.execution_count
    returned = []

    async def cell():
        _trigger(shell, "pre_execute")
        _trigger(shell, "pre_run_cell", info)
        try:
            returned.append(run())
        except BaseException as error:
            result.error_in_exec = error
        _trigger(shell, "post_execute")
        _trigger(shell, "post_run_cell", result)

    _run_until_done(loop, loop.create_task(cell()))
    if result.error_in_exec is not None:
        raise result.error_in_exec
    return returned[0]


def run_loop_for(loop, seconds: float):
    """`loop` runs what is due on it for `seconds`, as a kernel's does between cells."""
    waited = loop.create_future()
    loop.call_later(seconds, waited.set_result, None)
    _run_until_done(loop, waited)


def holds_work(loop) -> bool:
    """Whether `loop` would still run something: a callback, a timer not cancelled, a task not done, or a reader or
    writer on a descriptor other than the loop's own (its self-pipe), which a kernel's loop calls when the descriptor
    becomes ready (a timerfd, a socket). (Its private lists: asyncio has no public way to ask.)"""
    watched = () if loop.is_closed() else [fd for fd in loop._selector.get_map() or () if fd != loop._ssock.fileno()]
    return (bool(loop._ready) or any(not timer.cancelled() for timer in loop._scheduled)
            or bool(asyncio.all_tasks(loop)) or bool(watched))


def _run_until_done(loop, future):
    """Runs `loop` until `future` is done, whatever stops it earlier: a cell's loop.stop(), or a signal handler that
    raised between callbacks (a kernel shows what it raised and goes on)."""
    future.add_done_callback(lambda _: loop.stop())
    while not future.done():
        try:
            loop.run_forever()
        except BaseException:
            pass


def _trigger(shell, event: str, *args):
    """IPython's trigger, which shows what a callback raised and goes on; what it lets through (SystemExit) is
    dropped too, so that no callback stops the driver."""
    try:
        shell.events.trigger(event, *args)
    except BaseException:
        pass


def shell_namespace(shell, module):
    """`module`'s namespace becomes the one `shell`'s magics run in, with the names IPython defines there."""
    shell.init_create_namespaces(user_module=module)
    shell.init_user_ns()


def as_in_a_kernel(module, argv: list, workdir: str, driver_modules: list, hidden: str | None, shell=None):
    """The cells' module becomes `__main__` and `shell`'s namespace, with the names IPython defines in it;
    sys.argv and sys.orig_argv are the kernel's; the driver's own modules are no longer listed, nor its folder on
    sys.path (`hidden`), which starts with the working folder, as a kernel's with the notebook's."""
    if shell is not None:
        shell_namespace(shell, module)
    sys.modules["__main__"] = module
    for name in driver_modules:
        sys.modules.pop(name, None)
    if hidden is not None:
        sys.path[:] = [path for path in sys.path if path != hidden]
    sys.path.insert(0, workdir)  # a kernel's starts with its folder: a module a %%writefile cell wrote there imports
    sys.argv[:] = argv
    sys.orig_argv[:] = kernel_command(sys.executable, argv)
    module.__dict__.update({"In": [""], "Out": {}, "_oh": {}, "_dh": [workdir], "_": "", "__": "", "___": "",
                            "__builtin__": sys.modules["builtins"]})
    if os.environ.get("JPY_SESSION_NAME"):  # as ipykernel names the notebook its kernel runs
        module.__dict__["__session__"] = os.environ["JPY_SESSION_NAME"]
    kernel_process(argv)


def kernel_process(argv: list):
    """What the zygote's kernel (`kernel_shell`, `kernel_streams`) knows of the step's own process: its IPKernelApp's
    connection file is the one `argv` names, its OutStreams and IOPub thread were made in this process (their pid);
    a few attributes: some microseconds."""
    app = sys.modules.get("ipykernel.kernelapp")
    if app is not None and app.IPKernelApp.initialized() and "-f" in argv:
        instance = app.IPKernelApp.instance()
        instance.connection_file = argv[argv.index("-f") + 1]
        instance.connection_dir = os.path.dirname(instance.connection_file)
    for stream in (sys.stdout, sys.stderr):
        if "_master_pid" in getattr(stream, "__dict__", ()):
            stream._master_pid = os.getpid()
            if "_master_pid" in getattr(getattr(stream, "pub_thread", None), "__dict__", ()):
                stream.pub_thread._master_pid = os.getpid()


def kernel_history(namespace: dict, shell, sources: list):
    """In, _ih, _i<n>, _i, _ii, _iii and the shell's execution_count as in a kernel that has run `sources` (the
    notebook's code cells up to the one running), one execution each."""
    history = ["", *sources]
    namespace.update({"In": history, "_ih": history})
    namespace.update({name: history[-back] if len(history) > back else "" for name, back in
                      (("_i", 2), ("_ii", 3), ("_iii", 4))})
    namespace.update({f"_i{number}": source for number, source in enumerate(sources, 1)})
    if shell is not None:
        shell.execution_count = len(sources)


# The __future__ features a cell turns on stay on for every later cell of the kernel: IPython's compiler keeps the
# flags a cell's `from __future__ import ...` sets (codeop.Compile), as a module's would not. A later cell's
# annotations of names never defined (`client: Anthropic | None`) run in a notebook only because of it.
FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def future_flags(source: str, flags: int) -> int:
    """`flags` with the __future__ features `source` turns on (compiled with `flags`, as a kernel compiles the
    cell after those before it); `flags` alone if it does not compile."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = compile(source, "<cell>", "exec", flags=flags, dont_inherit=True)
    except Exception:
        return flags
    return flags | (code.co_flags & FUTURE_FLAGS)


def cell_file(source: str, pid: int | None = None) -> str:
    """Where a kernel says a cell's code comes from (its functions' co_filename): ipykernel_<pid>/<hash>.py, with
    this process's pid unless `pid` names another."""
    return f"/tmp/ipykernel_{os.getpid() if pid is None else pid}/{zlib.crc32(source.encode())}.py"


def proc_entries(pid: int, status: str, stat: str, cgroup: str, argv: list, executable: str, started: tuple) -> dict:
    """A /proc for the steps of a grading session: name -> text, ("link", target) or ("dir",). `status` and `stat` are
    /proc/<pid>/status and stat of a plausible python (the zygote's), renumbered for the student's process `pid`
    and for its parent, pid 1: a Jupyter server started from the same python; `cgroup`, the grader's own
    /proc/self/cgroup, gives their cgroup's hierarchies (`at_cgroup_root`). Written once, outside the sandbox;
    each step's first process binds it over /proc, the machine's own files (PROC_MACHINE) over its empty ones, and
    its student's environment over `<pid>/environ`. `started`: the kernel's and the server's start (started_ticks)."""
    server = [executable, os.path.join(os.path.dirname(executable), "jupyter-lab"), "--no-browser"]
    entries = dict.fromkeys(PROC_MACHINE, "")
    entries["self"] = ("link", str(pid))
    for number, parent, command, began in ((pid, 1, kernel_command(executable, argv), started[0]),
                                           (1, 0, server, started[1])):
        entries[f"{number}/cmdline"] = "\0".join(command) + "\0"
        entries[f"{number}/comm"] = "python\n" if number == pid else "jupyter-lab\n"
        entries[f"{number}/status"] = _renumbered_status(status, number, parent)
        entries[f"{number}/stat"] = _renumbered_stat(stat, number, parent, began)
        entries[f"{number}/exe"] = ("link", os.path.realpath(executable))
        entries[f"{number}/cgroup"] = at_cgroup_root(cgroup)
    entries[f"{pid}/environ"] = ""  # where each step binds its own
    entries[f"{pid}/fd"] = ("dir",)  # where the student's process binds its real descriptors (child._bind_own_fds)
    return entries


def at_cgroup_root(cgroup: str) -> str:
    """/proc/<pid>/cgroup (hierarchy:controllers:path, one hierarchy a line: "0::/..." alone on cgroup v2) with every
    path "/": what a kernel in a container of its own shows (Docker's, JupyterHub's), naming none of the grader's
    cgroups."""
    return "".join(":".join(line.split(":", 2)[:2]) + ":/\n" for line in cgroup.splitlines() if line)


def environ_text(env: dict) -> str:
    return "".join(f"{key}={value}\0" for key, value in env.items())


def write_entries(folder: str, entries: dict):
    """`proc_entries` as files, links and folders under `folder`, read-only."""
    for name, content in entries.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if content == ("dir",):
            os.mkdir(path, 0o555)
        elif isinstance(content, tuple):
            os.symlink(content[1], path)
        else:
            with open(path, "w") as file:
                file.write(content)
            os.chmod(path, 0o444)


def _renumbered_status(status: str, pid: int, parent: int) -> str:
    lines = []
    for line in status.splitlines():
        key = line.split(":", 1)[0]
        if key in STATUS_PIDS:
            line = f"{key}:\t{pid}"
        elif key == "PPid":
            line = f"PPid:\t{parent}"
        elif key == "TracerPid":
            line = "TracerPid:\t0"
        elif key in ("Uid", "Gid"):  # the zygote's (root in its namespace): the student's, as os.getresuid() says
            line = f"{key}:" + f"\t{STUDENT_UID}" * 4
        elif key == "Name":
            line = "Name:\tpython" if parent else "Name:\tjupyter-lab"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _renumbered_stat(stat: str, pid: int, parent: int, started: int) -> str:
    """pid (comm) state ppid pgrp session ...: the numbers before the rest renumbered, and the start time (field 22,
    in clock ticks since boot) `started`."""
    rest = stat.rpartition(")")[2].split()
    rest[1:4] = [str(parent), str(pid), str(pid)]
    rest[STAT_STARTTIME] = str(started)
    return f"{pid} ({'python' if parent else 'jupyter-lab'}) {' '.join(rest)}\n"


def started_ticks(uptime: float, rng: random.Random) -> tuple:
    """When the kernel and the Jupyter server began, in clock ticks since boot: a kernel open for 10 minutes to 3 hours,
    its server longer, as a student's are (a grading session's processes are seconds old: a submission that waits
    for an old process to misbehave is seen), never before the machine booted."""
    ticks = os.sysconf("SC_CLK_TCK")
    kernel_age = min(rng.uniform(600, 3 * 3600), uptime * 0.9)
    server_age = min(kernel_age + rng.uniform(60, 2 * 3600), uptime * 0.95)
    return int((uptime - kernel_age) * ticks), int((uptime - server_age) * ticks)
