"""The grading sandbox (autograder.sandbox) from the student's side: what code inside can see and
reach, and what it cannot change about what the grader observes. Run as root and as an ordinary
user: the guarantees are the same."""
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import zygote
from autograder.guise import cell_file
from autograder.judge import left_running_feedback
from autograder.scenario_run import STEP_TRACE_BYTES
from autograder.hidden_tests.crashes import Save, first_failure, power_cuts
from autograder.notebook_code import ROOT
from autograder.isolation import KEPT_SCRATCH_INSIDE
from autograder.scenario import Appended, FileData
from autograder.sandbox import (ALLOW_ENV, BWRAP_ENV, FLOODED, LINGER, SOCKET_DIR_INSIDE, SOCKET_NAME, IsolationUnavailable,
                                Limits, SubmissionTrouble, Sandbox, Scenario, isolation_problem, scratch_folder)
from instruments.host import memory_tmp_dir



@pytest.fixture(scope="module")
def sandbox():
    problem = isolation_problem()
    if problem is not None:
        pytest.skip(f"no namespaces on this machine: {problem}")
    with Sandbox() as box:
        yield box


def call(name, *args, **options):
    return {"kind": "call", "name": name, "args": list(args), "kwargs": {}, **options}


def run(sandbox, source, *steps, decor=None, **options):
    scenario = Scenario("t", steps=list(steps), independent_steps=True, **options)
    return sandbox.run(scenario, [{"name": "code", "source": source}], SubmissionTrouble(), (), decor)


def value(outcome, index=0):
    step = outcome.steps[index]
    assert step["status"] == "returned", step
    return step["value"]


PROBE = f'''
import os, socket, sys, course
from pathlib import Path

def look():
    seen = {{"uid": os.getuid(), "pid": os.getpid(), "root": sorted(os.listdir("/")), "proc": os.listdir("/proc"),
            "course_parent": sorted(os.listdir(Path(course.__file__).resolve().parent.parent)),
            "repository": os.path.exists({str(ROOT / "source")!r}), "home": sorted(os.listdir({str(Path.home())!r})) if os.path.isdir({str(Path.home())!r}) else [],
            "env": sorted(os.environ), "driver": os.listdir("/opt/kernel") + [m for m in sys.modules if "autograder" in m]}}
    try:
        socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
        seen["tcp"] = "connected"
    except OSError as error:
        seen["tcp"] = type(error).__name__
    return seen
'''


def test_student_code_sees_no_course_files_no_processes_no_network(sandbox):
    listener = socket.create_server(("127.0.0.1", 0))  # a service on the grader's machine, e.g. a mail server
    port = listener.getsockname()[1]
    try:
        seen = value(run(sandbox, PROBE.replace("PORT", str(port)), call("look")))
    finally:
        listener.close()
    assert seen["uid"] == 1000  # a student's, not "nobody"
    # no other process (the zygote, the grader, other students) is visible: only its own and its "server"
    assert {name for name in seen["proc"] if name.isdigit()} == {"1", str(seen["pid"])}
    assert seen["course_parent"] == ["course"]  # and no driver: its folder is covered, its modules unlisted
    assert not seen["driver"]
    assert not seen["repository"]
    assert set(seen["home"]) <= {".pyenv"}  # at most the folder that holds the interpreter
    assert {"home", "tmp", "usr"} <= set(seen["root"]) and "sandbox" not in seen["root"]
    assert not any("KEY" in name or "TOKEN" in name for name in seen["env"])
    assert seen["tcp"] != "connected"


OWN_FDS = '''
import os

def own_fds():
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
    os.write(fd, b"named late")
    os.fsync(fd)
    here = os.open(".", os.O_RDONLY)  # with a dir fd os.link calls linkat(AT_SYMLINK_FOLLOW), as man 2 open does
    os.link(f"/proc/self/fd/{fd}", "named.txt", dst_dir_fd=here, follow_symlinks=True)
    os.close(here)
    listed = sorted(int(n) for n in os.listdir("/proc/self/fd"))
    os.close(fd)
    return {"listed": fd in listed, "read": open("named.txt").read(), "parent": os.path.exists("/proc/1/fd")}
'''


def test_student_process_has_its_own_descriptors_at_proc_self_fd(sandbox):
    """/proc/self/fd is the student's real one, as in a kernel (an O_TMPFILE file is named through it), and the
    covered /proc still shows nothing of its parent's."""
    seen = value(run(sandbox, OWN_FDS, call("own_fds")))
    assert seen == {"listed": True, "read": "named late", "parent": False}


NOTEBOOK_FOLDER = '''
import os

def look():
    return sorted(os.listdir(".")), open("lesson.ipynb").read(), os.stat("lesson.ipynb").st_mtime_ns

def touch():
    with open("loop.svg", "a") as picture:
        picture.write("<!-- -->")
'''


def test_the_notebooks_own_files_are_in_the_working_folder_and_count_only_when_changed(sandbox):
    """As in JupyterLab, the code runs beside its notebook (folder.notebook_folder_files): the student's code sees
    the files, and the grader's listing leaves them out until the code changes one."""
    decor = {"lesson.ipynb": FileData(b"{}", mtime_ns=1_700_000_000_123_456_789), "loop.svg": b"<svg/>",
             ".ipynb_checkpoints/lesson-checkpoint.ipynb": b"{}"}
    outcome = run(sandbox, NOTEBOOK_FOLDER, call("look"), call("touch"), decor=decor)
    assert value(outcome) == [[".ipynb_checkpoints", "lesson.ipynb", "loop.svg"], "{}", 1_700_000_000_123_456_789]
    assert outcome.files_by_step == [[], ["loop.svg"]]


FORGED = '''
import builtins, json, os

os.fsync = os.fdatasync = lambda fd: None          # a save that never syncs, made to look durable...
real_replace = os.replace
os.replace = lambda a, b: real_replace(a, b)
json.dump = lambda obj, fp, **kw: fp.write(json.dumps(obj))
builtins.print = lambda *a, **k: None

def save(state, path):
    tmp = str(path) + ".tmp"
    with open(tmp, "w") as file:
        json.dump(state, file)
        os.fsync(file.fileno())
    os.replace(tmp, path)
    folder = os.open(os.path.dirname(str(path)), os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)
'''


def test_patching_fsync_json_or_builtins_changes_nothing_the_grader_sees(sandbox):
    outcome = run(sandbox, FORGED, call("save", {"a": 1}, {"$path": "runs/x7/cp-abc.json"}))
    assert outcome.steps[0]["status"] == "returned"
    ops = [(e["op"], os.path.basename(e["path"])) for e in outcome.fs_events]
    assert ("write", "cp-abc.json.tmp") in ops and ("rename", "cp-abc.json.tmp") in ops
    assert not any(op in ("fsync", "fdatasync") for op, _ in ops), ops
    assert outcome.files_after == {} and outcome.files_by_step == [["runs/x7/cp-abc.json"]]
    assert all(e["path"].startswith(outcome.workdir + "/") for e in outcome.fs_events)


SAVES = {
    "durable": '''
def save(state, path):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as file:
        file.write(json.dumps(state))
        file.flush()
        os.fsync(file.fileno())
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)
''',
    "fsync before the last write": '''
def save(state, path):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as file:
        file.write(json.dumps(state)[:5])
        file.flush()
        os.fsync(file.fileno())
        file.write(json.dumps(state)[5:])
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)
''',
    "fsync before flush": '''
def save(state, path):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as file:
        file.write(json.dumps(state))
        os.fsync(file.fileno())
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)
''',
    "no folder fsync": '''
def save(state, path):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as file:
        file.write(json.dumps(state))
        file.flush()
        os.fsync(file.fileno())
    os.replace(tmp, path)
''',
}


@pytest.mark.parametrize("kind", sorted(SAVES))
def test_power_cuts_follow_the_order_the_kernel_saw(sandbox, kind):
    """test_durable's crash states come from strace's record: only the durable save survives every power cut."""
    source = "import json, os\n" + SAVES[kind]
    state = {"version": 1, "task": "t", "turns": 1}
    scenario = Scenario("save", steps=[call("save", state, {"$path": "cp-x.json"})], meta={"file": "cp-x.json"})
    outcome = sandbox.run(scenario, [{"name": "code", "source": source}], SubmissionTrouble())
    failure = first_failure(power_cuts(outcome, [Save(0, None, state, "保存时")]), sandbox.reference)
    assert (failure is None) == (kind == "durable"), failure


def test_a_long_trace_is_freed_as_it_is_read_and_the_zygote_kept(sandbox, monkeypatch):
    """Past MAX_TRACE_BYTES read, the log's read part becomes a hole (memory back, size kept): the zygote goes on,
    and the power cuts of the saves that follow still come from what the kernel saw."""
    sandbox.zygote.ensure_started()
    starts, log = sandbox.zygote.starts, sandbox.zygote.trace.path
    held_before = os.stat(log).st_blocks * 512  # the zygote's start: megabytes
    monkeypatch.setattr(zygote, "MAX_TRACE_BYTES", 1)
    test_power_cuts_follow_the_order_the_kernel_saw(sandbox, "no folder fsync")
    test_power_cuts_follow_the_order_the_kernel_saw(sandbox, "durable")
    assert sandbox.zygote.starts == starts and sandbox.zygote.trace.freed > 0
    size, held = os.stat(log).st_size, os.stat(log).st_blocks * 512
    assert held < held_before / 4 and held < size - sandbox.zygote.trace.freed + 64 * 1024, (size, held, held_before)


def test_modules_are_read_as_in_a_notebook(sandbox):
    """The zygote reads its own imports' files its way (fewer stops under strace); the student's code meets the
    import system as it is in a kernel."""
    import importlib._bootstrap_external as machinery
    source = ("import importlib._bootstrap_external as machinery\n"
              "def reader():\n    return machinery.FileLoader.get_data.__code__.co_filename\n")
    assert value(run(sandbox, source, call("reader"))) == machinery.FileLoader.get_data.__code__.co_filename


def test_cells_are_compiled_once_by_the_grader_under_the_name_the_step_gives_them(sandbox):
    """Sandbox.compiled compiles each cell once per submission; a step's process runs that code only when it was
    compiled under the name the process gives the cell (guise.cell_file, its pid), else compiles the source itself. A
    cell that does not compile, or warns as it compiles, is left to the step's process: its error is the student's."""
    source = "def where():\n    return [VALUE, where.__code__.co_filename]\nVALUE = 'source'\n"
    [cell] = sandbox.compiled([{"name": "code", "source": source}])
    assert cell["file"] == cell_file(source, sandbox.student_pid)
    [other] = sandbox.compiled([{"name": "code", "source": source.replace("'source'", "'grader'")}])

    def seen(code_file):
        cells = [{"name": "code", "source": source, "code": other["code"], "file": code_file}]
        scenario = Scenario("t", steps=[call("where")])
        return value(sandbox.run(scenario, cells, SubmissionTrouble(), ()))

    assert seen(cell["file"]) == ["grader", other["file"]]
    assert seen(cell_file(source, sandbox.student_pid + 1)) == ["source", cell["file"]]
    assert sandbox.compiled([{"name": "a", "source": "x = '\\d'\n"}, {"name": "b", "source": "def (:\n"}]) == [
        {"name": "a", "source": "x = '\\d'\n"}, {"name": "b", "source": "def (:\n"}]


def test_the_student_has_an_account_and_localhost_as_on_their_own_machine(sandbox):
    """pwd and getpass name the user, and localhost resolves, as in the notebook (an /etc without accounts or hosts
    raised KeyError and gaierror)."""
    source = ("import getpass, grp, os, pwd, socket\n"
              "def who():\n"
              "    return [getpass.getuser(), pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name,\n"
              "            pwd.getpwuid(os.getuid()).pw_dir, socket.gethostbyname('localhost'),\n"
              "            socket.gethostbyname(socket.gethostname()), os.environ['USER'], os.environ['LOGNAME']]\n")
    assert value(run(sandbox, source, call("who"))) == ["student", "student", "student", "/home/student", "127.0.0.1",
                                                        "127.0.1.1", "student", "student"]


def _can_collapse() -> bool:
    """Whether this kernel makes huge pages of a process's memory on request (MADV_COLLAPSE, Linux 6.1)."""
    import ctypes
    import mmap
    from autograder.child import HUGE_PAGE, MADV_COLLAPSE
    region = mmap.mmap(-1, 2 * HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    region.write(b"x" * len(region))
    address = ctypes.addressof(ctypes.c_char.from_buffer(region))
    aligned = -(-address // HUGE_PAGE) * HUGE_PAGE
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.madvise(ctypes.c_void_p(aligned), ctypes.c_size_t(HUGE_PAGE), MADV_COLLAPSE) == 0


def test_the_zygote_starts_with_its_memory_in_huge_pages():
    """Every step forks the zygote twice: one page-table entry per 2 MiB instead of one per 4 KiB."""
    if isolation_problem() is not None or not _can_collapse():
        pytest.skip("no namespaces, or no huge pages on request, on this machine")
    with Sandbox() as fresh:
        fresh.zygote.ensure_started()
        with open(f"/proc/{fresh.zygote_pid}/smaps_rollup") as rollup:
            sizes = {line.split(":")[0]: int(line.split()[1]) for line in rollup if line.startswith("Anon")}
    assert sizes["AnonHugePages"] > sizes["Anonymous"] / 2, sizes


def test_strace_does_not_stop_the_zygote_at_each_module_it_imports():
    """Some 3600 modules: an openat and a close each, every one a stop under strace, were half of a zygote's start."""
    if isolation_problem() is not None:
        pytest.skip("no namespaces on this machine")
    with Sandbox() as fresh:
        fresh.zygote.ensure_started()
        start = (fresh.base / f"trace-{fresh.zygote.starts}.log").read_text(errors="replace")
        outcome = fresh.run(Scenario("t", steps=[call("where")], independent_steps=True),
                            [{"name": "code", "source": "import json\ndef where():\n    return json.__file__"}],
                            SubmissionTrouble())
    assert value(outcome).endswith("json/__init__.py")
    compiled = [line for line in start.splitlines() if "openat(" in line and '.pyc"' in line]
    assert 0 < len(compiled) < 200, f"{len(compiled)} modules opened where strace stops"  # those before the loader


UNTRACED = '''
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)

class How(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

def try_calls():
    how = How(os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, 0)
    fd = os.open("seen.json", os.O_WRONLY | os.O_CREAT, 0o644)
    empty, filled = os.pipe()
    os.write(filled, b"{}")
    found = {}
    for name, number, args in [("openat2", 437, (-100, b"hidden.json", ctypes.byref(how), ctypes.sizeof(how))),
                               ("io_uring_setup", 425, (4, ctypes.create_string_buffer(120))),
                               ("splice", 275, (empty, None, fd, None, 2, 0)),
                               ("fallocate", 285, (fd, 0, ctypes.c_int64(0), ctypes.c_int64(4096))),
                               ("io_setup", 206, (1, ctypes.byref(ctypes.c_ulong(0))))]:
        ctypes.set_errno(0)
        result = libc.syscall(number, *args)
        found[name] = [result, errno.errorcode.get(ctypes.get_errno())]
    os.posix_fallocate(fd, 0, 2)  # glibc writes the zeros itself where the file system has no fallocate
    os.pwrite(fd, b"{}", 0)
    os.close(fd)
    child = os.fork()
    if child == 0:  # in a notebook no one traces the kernel's child: it may ask its parent to
        os._exit(0 if libc.ptrace(0, 0, None, None) == 0 else 1)
    found["ptrace(PTRACE_TRACEME)"] = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    os.mkdir("made")
    os.rmdir("made")
    return found
'''


def test_calls_that_strace_would_not_see_fail_as_on_a_kernel_without_them(sandbox):
    """openat2 opens (and truncates) a file, io_uring, splice and Linux AIO write one, fallocate changes its bytes
    or size, without a call fs_trace.TRACED names (autograder.untraced). ptrace(PTRACE_TRACEME) succeeds, as it does
    in a notebook, though strace traces the step (probe 11, tamper_detect_ptrace)."""
    if os.uname().machine != "x86_64":
        pytest.skip("the calls are asked for by their x86_64 numbers")
    outcome = run(sandbox, UNTRACED, call("try_calls"))
    assert value(outcome) == {"openat2": [-1, "ENOSYS"], "io_uring_setup": [-1, "ENOSYS"], "splice": [-1, "ENOSYS"],
                              "fallocate": [-1, "ENOTSUP"], "io_setup": [-1, "ENOSYS"],
                              "ptrace(PTRACE_TRACEME)": 0}
    assert outcome.files_by_step == [["seen.json"]]
    folder = os.path.join(outcome.workdir, "made")
    assert [e["op"] for e in outcome.fs_events if e.get("path") == folder] == ["mkdir", "rmdir"]


def test_the_graders_own_scratch_is_in_memory_and_a_killed_graders_is_removed(sandbox):
    """The reference's saves and the rebuilt crash states go to memory where it can be had (they fsync); what a
    grader killed mid-judgement left there is removed by the next grader's sandbox."""
    with scratch_folder("crash") as folder:
        assert memory_tmp_dir() is None or Path(folder).parent == Path(memory_tmp_dir())
    killed = subprocess.run([sys.executable, "-c", "import os\nfrom autograder.sandbox import scratch_folder\n"
                             "held = scratch_folder('crash')\nprint(held.name, flush=True)\nos._exit(9)"],
                            cwd=ROOT, capture_output=True, text=True)
    left = Path(killed.stdout.strip())
    assert killed.returncode == 9 and left.is_dir(), killed.stderr
    with Sandbox():
        assert not left.exists()


ELSEWHERE = '''
import os
PLACES = ("/", "/run", "/etc", "/home", "/home/student", "/home/student/bundle", "/home/student/work", "/opt/kernel",
          "/run/user/1000", "/dev", "/dev/shm", "/tmp", ".")

def leave():
    left = []
    for place in PLACES:
        try:
            with open(os.path.join(place, "left-behind.txt"), "w") as file:
                file.write("x")
            left.append(place)
        except OSError:
            pass
    return left

def find():
    return [place for place in PLACES if os.path.exists(os.path.join(place, "left-behind.txt"))]

def kept():
    return os.listdir(KEPT_SCRATCH_INSIDE)
'''.replace("KEPT_SCRATCH_INSIDE", repr(KEPT_SCRATCH_INSIDE))


def test_only_the_scenario_s_own_places_outlive_a_step():
    """Every other place is read-only; the working folder, /tmp and /dev/shm last from step to step of a scenario, as
    in a kernel from cell to cell, and the next scenario has fresh ones: nothing a step writes reaches another scenario
    or student. Where the grader keeps them between the steps is out of sight."""
    with Sandbox() as box:
        outcome = run(box, ELSEWHERE, call("leave"), call("find"), call("kept"))
        assert value(outcome, 0) == value(outcome, 1) == ["/dev/shm", "/tmp", "."] and value(outcome, 2) == []
        assert value(run(box, ELSEWHERE, call("find"))) == []


LATER = '''
import os, threading, time
from concurrent.futures import ThreadPoolExecutor

pool = ThreadPoolExecutor(max_workers=2)  # its threads start with the first task

def later(name, delay=0.6):
    time.sleep(delay)
    open(name, "w").write("still here")

def start_everything():
    threading.Thread(target=later, args=("thread.txt",), daemon=True).start()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            later("daemon.txt")
        os._exit(0)
    return "started"

def start_forever():
    threading.Thread(target=later, args=("thread-late.txt", 30), daemon=True).start()
    if os.fork() == 0:
        later("process-late.txt", 30)
    return "started"

def start_thread_forever():
    threading.Thread(target=later, args=("thread-late.txt", 30), daemon=True).start()
    return "started"

def start_orphan_forever(interrupt_pid_1=False):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if interrupt_pid_1:  # as if to end the watch early: in a notebook kill(1) fails, and it would go on
                time.sleep(0.5)
                os.kill(1, __import__("signal").SIGINT)
            later("process-late.txt", 30)
        os._exit(0)
    return "started"

def use_pool():
    pool.submit(later, "pooled.txt", 0).result()  # the pool's worker idle after, as it stays in a kernel
    return "started"

def start_pool_forever():
    pool.submit(later, "pool-late.txt", 30)
    return "started"

def look():
    return sorted(os.listdir("."))

def kill_everyone():
    import signal
    if os.fork() == 0:
        time.sleep(30)
        os._exit(0)
    os.kill(-1, signal.SIGKILL)  # everyone this process may signal, but itself
    return os.waitpid(-1, 0)[1]

def kill_my_group():
    import signal
    if os.fork() == 0:
        time.sleep(30)
        os._exit(0)
    os.kill(0, signal.SIGKILL)  # its process group: its child and itself, as in a notebook's kernel
'''


def test_what_a_step_leaves_behind_is_watched_until_it_ends(sandbox):
    outcome = run(sandbox, LATER, call("start_everything"), call("look"))
    assert value(outcome, 0) == "started"
    assert outcome.files_by_step[0] == ["daemon.txt", "thread.txt"]  # written 0.6 s after the function returned
    assert value(outcome, 1) == ["daemon.txt", "thread.txt"]
    written = [e for e in outcome.fs_events if e["op"] == "write"]
    assert {os.path.basename(e["path"]) for e in written} == {"daemon.txt", "thread.txt"}
    assert all(e["step"] == 0 for e in written)
    assert outcome.left_running == [], "all it left ended while watched"


DEFINED_WITH_A_LOG = """
import os
log = open("cell.log", "a")  # as logging.basicConfig(filename=...) does when the cell is defined

def note(line, name=None):
    log.write(line + "\\n")
    log.flush()
    if name:
        with open(name, "w") as handle:
            handle.write(line)
    return sorted(os.listdir("."))
"""


def test_files_the_definitions_make_are_told_apart_from_the_steps(sandbox):
    outcome = run(sandbox, DEFINED_WITH_A_LOG, call("note", "a"), call("note", "b", "made.txt"))
    assert value(outcome, 0) == ["cell.log"] and outcome.defined_files == [["cell.log"], ["cell.log"]]
    assert outcome.files_by_step == [["cell.log"], ["cell.log", "made.txt"]]
    opened = [e for e in outcome.fs_events if e["op"] == "open" and e["path"].endswith("/cell.log")]
    assert [e["step"] for e in opened] == [0, 1]
    assert all(e["at"] <= outcome.started_at[e["step"]] for e in opened), "opened before each step's call began"
    made = [e for e in outcome.fs_events if e["op"] == "open" and e["path"].endswith("/made.txt")]
    assert len(made) == 1 and made[0]["at"] > outcome.started_at[1] > outcome.started_at[0]


def test_what_never_ends_is_watched_for_a_while_then_stopped(sandbox):
    started = time.monotonic()
    trouble = SubmissionTrouble()
    outcome = sandbox.run(Scenario("t", [call("start_forever", timeout=20), call("look")], independent_steps=True),
                          [{"name": "code", "source": LATER}], trouble)
    assert value(outcome, 0) == "started"  # what the function returned stands
    assert value(outcome, 1) == [] and outcome.files_by_step == [[], []]
    assert time.monotonic() - started < 2 * LINGER + 4, "a thread and a process that sleep on are not waited for"
    # ...but they would go on in a notebook: the grader cannot judge what they did, and says so
    assert outcome.left_running == [{"step": 0, "left": ["threads", "processes"]}]
    assert trouble.kinds == {"left_running": 1}
    # the step's deadline, once it has returned, does not cut the watch short (a process about to exit would look
    # like one still running)
    started = time.monotonic()
    outcome = run(sandbox, LATER, call("start_forever", timeout=1), call("look"))
    assert value(outcome, 0) == "started" and value(outcome, 1) == []
    assert outcome.left_running == [{"step": 0, "left": ["threads", "processes"]}]
    assert 2 * LINGER < time.monotonic() - started < 2 * LINGER + 4


@pytest.mark.parametrize("function, interrupt, left", [("start_thread_forever", False, ["threads"]),
                                                       ("start_orphan_forever", False, ["processes"]),
                                                       ("start_orphan_forever", True, ["processes"]),
                                                       ("start_pool_forever", False, ["threads"])])
def test_a_thread_or_process_still_running_when_the_watch_ends_is_reported(sandbox, function, interrupt, left):
    args = [interrupt] if interrupt else []
    outcome = run(sandbox, LATER, call(function, *args, timeout=20), call("look"))
    assert value(outcome, 0) == "started" and value(outcome, 1) == []
    assert outcome.left_running == [{"step": 0, "left": left}]
    assert "返回之后，你的代码留下的" in left_running_feedback(outcome)


def test_a_thread_pool_s_idle_worker_is_not_left_running(sandbox):
    """A pool made once and idle after each task: its worker waits in the get of its empty work queue, in a kernel for
    good, doing nothing unless code that is itself watched hands it work (probe 15b, full_save_worker_thread)."""
    outcome = run(sandbox, LATER, call("use_pool"), call("look"))
    assert value(outcome, 0) == "started" and value(outcome, 1) == ["pooled.txt"]
    assert not outcome.left_running


AS_IN_A_KERNEL = """
import asyncio, signal
import tornado.ioloop

loop_when_defined = asyncio.get_running_loop()

def write(name):
    open(name, "w").write("done")


def later(seconds, name="later.txt"):
    asyncio.get_running_loop().call_later(seconds, write, name)
    return "scheduled"

def after_this_cell(name="after.txt"):
    get_ipython().events.register("post_run_cell", lambda result: write(name))
    return "registered"

def alarm(seconds, name="alarm.txt"):
    signal.signal(signal.SIGALRM, lambda *_: write(name))
    signal.alarm(seconds)
    return "set"

def look_around():
    import os
    return sorted(os.listdir("."))
"""
# callbacks of the student's on IPython's events: they are also left armed for the cells after the steps
EVENTS = AS_IN_A_KERNEL + """
events = []
for name in ("pre_execute", "pre_run_cell", "post_execute", "post_run_cell"):
    get_ipython().events.register(name, lambda *args, name=name: events.append(name))

def look():
    return {"events": list(events), "same_loop": asyncio.get_running_loop() is loop_when_defined,
            "tornado": tornado.ioloop.IOLoop.current().asyncio_loop is loop_when_defined}
"""


def test_cells_and_steps_run_in_a_kernel_s_event_loop_between_ipython_s_events(sandbox):
    """As in ipykernel: a cell's code finds the kernel's asyncio loop running (tornado's IOLoop wraps it), and
    IPython's pre_execute, pre_run_cell, post_execute and post_run_cell events fire around each cell and each step.
    A callback of the student's still registered after the steps would fire again in the next cell: it is left armed
    (autograder.armed), what it did around the step seen and judged all the same."""
    outcome = run(sandbox, EVENTS, call("look"))
    cell = ["pre_execute", "pre_run_cell", "post_execute", "post_run_cell"]
    assert value(outcome) == {"events": ["post_execute", "post_run_cell", *cell[:2]], "same_loop": True,
                              "tornado": True}
    assert outcome.left_running == [{"step": 0, "left": ["shell_hook"]}]
    outcome = run(sandbox, AS_IN_A_KERNEL, call("after_this_cell"), call("look_around"))
    assert outcome.files_by_step[0] == ["after.txt"] and outcome.left_running[0]["left"] == ["shell_hook"]
    assert "IPython 以后自己会调用的函数" in left_running_feedback(outcome)


@pytest.mark.parametrize("function", ["later", "alarm"])
def test_what_the_event_loop_or_an_alarm_still_holds_runs_while_watched_or_is_reported(sandbox, function):
    """What a step leaves on the kernel's event loop, or an alarm, goes off after the function returned, in a
    notebook as here: within the watch it runs and is judged; later than that, the grader says so."""
    outcome = run(sandbox, AS_IN_A_KERNEL, call(function, 1), call("look_around"))
    assert outcome.files_by_step[0] == [f"{function}.txt"] and outcome.left_running == []
    outcome = run(sandbox, AS_IN_A_KERNEL, call(function, 30, timeout=20), call("look_around"))
    assert value(outcome, 1) == [] and outcome.left_running == [{"step": 0, "left": ["scheduled"]}]
    assert "定时回调" in left_running_feedback(outcome)


LEFT_ARMED = """
import gc

def arm():
    gc.callbacks.append(lambda phase, info: None)  # called at each collection, in every later cell
    return "armed"

def look():
    return "looked"
"""


def test_code_left_armed_in_the_interpreter_is_reported(sandbox):
    """No thread, process, timer or alarm, but code that a kernel sets off in a later cell (autograder.armed): the
    grader cannot see what it would do, and says so."""
    outcome = run(sandbox, LEFT_ARMED, call("arm"), call("look"))
    assert value(outcome, 0) == "armed" and value(outcome, 1) == "looked"
    assert outcome.left_running == [{"step": 0, "left": ["gc_callback"]}]
    assert "留下了垃圾回收回调（gc.callbacks）" in left_running_feedback(outcome)


def test_a_step_flooding_its_output_is_ended_before_it_fills_the_graders_memory(sandbox):
    """A loop writing to its output makes strace log gigabytes within seconds (in memory, and read back at the
    step's end): the step is ended once its part of the log passes STEP_TRACE_BYTES, long before its deadline.
    (print itself goes to a kernel's OutStream, which makes no system call.)"""
    assert STEP_TRACE_BYTES > Limits().file_size, "writing one file full must stay the disk's trouble"
    flood = "import os\ndef flood():\n    while True:\n        os.write(1, b'x' * 65536)\n"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    started = time.monotonic()
    trouble = SubmissionTrouble()
    outcome = sandbox.run(Scenario("t", steps=[call("flood", timeout=60)]), [{"name": "code", "source": flood}],
                          trouble)
    assert outcome.steps[0] == {"status": "timeout", "detail": FLOODED}
    assert time.monotonic() - started < 30
    assert trouble.kinds == {"time": 1}
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < 4 * STEP_TRACE_BYTES // 1024, f"the grader grew by {grown} KiB"


def test_a_value_too_big_for_the_graders_messages_is_the_students_trouble(sandbox):
    """15 MB of text, escaped as JSON, is more than the grader reads of one message: the step says its value
    cannot be taken, instead of the grader failing on a closed connection."""
    outcome = run(sandbox, "def big():\n    return {'pad': '纪' * (15 * 1024 * 1024)}\n", call("big"))
    assert outcome.steps[0]["status"] == "unsupported", outcome.steps[0]


def test_a_cell_left_out_for_hanging_is_reported_in_every_later_scenario(sandbox):
    """The feedback of a later scenario says why the function is missing (the cell hung), not that it was never
    handed in."""
    cells = [{"name": "hangs", "source": "while True:\n    pass\n\ndef f():\n    return 1\n"},
             {"name": "fine", "source": "def g():\n    return 2\n"}]
    trouble = SubmissionTrouble()
    outcomes = [sandbox.run(Scenario("t", steps=[call("f")]), cells, trouble) for _ in range(2)]
    for outcome in outcomes:
        assert outcome.steps[0]["status"] == "missing"
        assert outcome.cells["hangs"]["status"] == "timeout", outcome.cells


def test_kill_minus_one_reaches_only_the_step_itself(sandbox):
    sandbox.zygote.ensure_started()
    starts = sandbox.zygote.starts
    outcome = run(sandbox, LATER, call("kill_everyone"), call("look", timeout=5))
    assert value(outcome, 0) == 9  # its own child was killed, and nothing else it could name
    assert value(outcome, 1) == []
    assert sandbox.zygote.starts == starts, "the zygote survived"


def test_killing_its_process_group_kills_only_the_step(sandbox):
    sandbox.zygote.ensure_started()
    starts = sandbox.zygote.starts
    outcome = run(sandbox, LATER, call("kill_my_group"), call("look", timeout=5))
    assert outcome.steps[0] == {"status": "died", "detail": "进程被 SIGKILL 终止"}
    assert value(outcome, 1) == []
    assert sandbox.zygote.starts == starts, "the zygote was in the step's process group"


ENDPOINTS = '''
import gc, json, socket

def borrow_the_reference_save(path):
    """Find the grader's token in memory and ask its stand-in to save (this scenario names none)."""
    job = next(o for o in gc.get_objects() if isinstance(o, dict) and "token" in o and "socket" in o)
    body = json.dumps({"state": {"version": 1}, "path": str(path)}).encode()
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(job["socket"])
    connection.sendall(f"POST /s/{job['token']}/standin/save_checkpoint HTTP/1.1\\r\\nHost: g\\r\\n"
                       f"Content-Length: {len(body)}\\r\\nConnection: close\\r\\n\\r\\n".encode() + body)
    reply = b""
    while chunk := connection.recv(4096):
        reply += chunk
    return json.loads(reply.partition(b"\\r\\n\\r\\n")[2])
'''


def test_a_stand_in_answers_only_in_a_scenario_that_names_it(sandbox):
    outcome = run(sandbox, ENDPOINTS, call("borrow_the_reference_save", {"$path": "cp.json"}))
    assert "error" in value(outcome)
    assert outcome.standin_calls == [] and outcome.files_by_step == [[]]



MALFORMED = '''
import re, socket

def talk(data, replies):
    connection = socket.socket(socket.AF_UNIX)
    connection.settimeout(5)
    connection.connect("SOCKET")
    connection.sendall(data.encode("latin-1"))
    got = b""
    while got.count(b"HTTP/1.1 ") < replies or not got.endswith(b"}"):
        chunk = connection.recv(65536)
        if not chunk:
            return re.findall("HTTP/1.1 ([0-9]+)", got.decode()), "closed"
        got += chunk
    connection.settimeout(0.5)
    try:
        state = "closed" if connection.recv(1) == b"" else "more"
    except socket.timeout:
        state = "open"
    return re.findall("HTTP/1.1 ([0-9]+)", got.decode()), state

def speak():
    event = "POST /s/nobody/event HTTP/1.1\\r\\nContent-Length: 2\\r\\n\\r\\n{}"
    return [talk("GARBAGE\\r\\n\\r\\n", 1), talk("GET /s/x/hello HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n", 1),
            talk("POST /s/x/hello HTTP/1.1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n", 1),
            talk("POST /s/x/hello HTTP/1.1\\r\\n" + "X-A: b\\r\\n" * 101 + "\\r\\n", 1),
            talk(event + event, 2), talk(event.replace("HTTP/1.1", "HTTP/1.0"), 1),
            talk(event.replace("\\r\\n\\r\\n", "\\r\\nConnection: close\\r\\n\\r\\n"), 1)]
'''


def test_malformed_requests_get_an_error_and_cost_the_grader_nothing(sandbox):
    outcome = run(sandbox, MALFORMED.replace("SOCKET", f"{SOCKET_DIR_INSIDE}/{SOCKET_NAME}"), call("speak"),
                  call("speak"))
    closed = [["400"], "closed"]
    assert value(outcome, 0) == [closed, closed, closed, closed, [["404", "404"], "open"], [["404"], "closed"],
                                 [["404"], "closed"]]
    assert value(outcome, 1) == value(outcome, 0)


CLIENTS = '''
import course

kept = []

def ask(client=None):
    kept.append(client)
    for each in (kept[0], client, course.make_client()):
        if each is not None:
            each.messages.create(model="claude-sonnet-4-6", max_tokens=100,
                                 messages=[{"role": "user", "content": "你好"}])
    return client is not course.make_client()
'''


def test_model_calls_say_which_client_made_them(sandbox):
    """The client passed in to this step, one passed in to an earlier step of the process, or any other."""
    outcome = run(sandbox, CLIENTS, *[{**step, "batch": "one process"}
                                      for step in (call("ask", {"$client": True}), call("ask", {"$client": True}),
                                                   call("ask"))])
    assert value(outcome, 0) is True
    assert [c["client"] for c in outcome.model_calls] == ["given", "given", "make_client",
                                                          "earlier", "given", "make_client",
                                                          "earlier", "make_client"]
    assert all(c["status"] == 200 for c in outcome.model_calls)


def test_without_namespaces_grading_stops_unless_the_risk_is_accepted(monkeypatch):
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    with pytest.raises(IsolationUnavailable) as refused:
        Sandbox()
    message = str(refused.value.code)
    assert "没有给任何学生评分" in message and "Grading stopped before grading anyone" in message
    assert "apt-get install bubblewrap" in message and "--allow-unisolated" in message
    monkeypatch.setenv(ALLOW_ENV, "1")
    with Sandbox() as unisolated:
        assert not unisolated.isolated
        outcome = run(unisolated, SAVES["durable"].replace("def save", "import json, os\ndef save", 1),
                      call("save", {"a": 1}, {"$path": "cp.json"}))
        assert [e["op"] for e in outcome.fs_events if e["op"] in ("fsync", "rename")] == ["fsync", "rename", "fsync"]


def course_with_one_student(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "grading"))
    from grading_corpus import build

    for name in ("course", "autograder", "source", "nbgrader_config.py"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, folder / name)
    submitted = folder / "submitted" / "alice" / "lesson03"
    submitted.mkdir(parents=True)
    (submitted / "resume-from-checkpoint.ipynb").write_text(build("full_reference"), encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", [["-m", "autograder.classgrade", "--no-progress", "."],
                                     ["-m", "nbgrader", "autograde", "lesson03"]], ids=["make grade", "nbgrader"])
def test_make_grade_and_nbgrader_stop_before_grading_anyone(tmp_path, command):
    course = course_with_one_student(tmp_path)
    env = {**os.environ, BWRAP_ENV: "/nonexistent/bwrap", "PYTHONPATH": str(course),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop(ALLOW_ENV, None)
    if "nbgrader" in command:  # the gradebook must know the assignment (make grade does this itself)
        subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "lesson03", "--force"], cwd=course,
                       env=env, check=True, capture_output=True, timeout=600)
    refused = subprocess.run([sys.executable, *command], cwd=course, env=env, capture_output=True, text=True,
                             timeout=600)
    assert refused.returncode != 0
    assert "没有给任何学生评分" in refused.stderr and "Grading stopped before grading anyone" in refused.stderr
    assert not (course / "grades.csv").exists() and not list(course.glob("feedback/*/lesson03/*"))
    assert auto_scores(course) == [], "nobody has an automatic score"


def auto_scores(course: Path) -> list:
    from nbgrader.api import Gradebook, MissingEntry

    if not (course / "gradebook.db").exists():
        return []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        try:
            submission = gradebook.find_submission("lesson03", "alice")
        except MissingEntry:
            return []
        return [grade.auto_score for notebook in submission.notebooks for grade in notebook.grades
                if grade.auto_score is not None]


KEYED = '''
from course import ServiceUnavailable, execute_tool, lookup_effect

EMAIL = {"to": "team@example.com", "subject": "本周结论"}


def send(key):
    return execute_tool("send_email", dict(EMAIL), idempotency_key=key)


def look(key):
    try:
        return lookup_effect("send_email", key)
    except ServiceUnavailable as error:
        return "unavailable: " + str(error)


def ask(lookup, name, key):
    try:
        return lookup(name, key)
    except ServiceUnavailable:
        return "unavailable"
'''


def test_the_grader_s_mail_server_knows_keys_and_answers_lookups(sandbox):
    """Lesson 4's tools in the sandbox: a key is delivered once, a lookup is answered by the grader's own
    server (by key), and a scenario can take the server down."""
    outcome = run(sandbox, KEYED, call("send", "toolu_01k"), call("send", "toolu_01k"), call("look", "toolu_01k"),
                  call("look", "toolu_01other"), call("send", None), emails_before=(({"to": "a@example.com",
                                                                                     "subject": "早先"}, "toolu_01e"),))
    assert outcome.delivered_ids[0] == "<toolu_01e@idempotency.example.com>"
    assert outcome.delivered_ids[1:2] == ["<toolu_01k@idempotency.example.com>"] and len(outcome.delivered_ids) == 3
    assert "already" not in value(outcome, 0) and "认出了这个幂等键" in value(outcome, 1)
    assert "Message-ID <toolu_01k@" in value(outcome, 2) and value(outcome, 3) is None
    assert [c["key"] for c in outcome.tool_calls] == ["toolu_01k", "toolu_01k", None]
    assert [(c["key"], c["unavailable"]) for c in outcome.lookups] == [("toolu_01k", False), ("toolu_01other", False)]
    down = run(sandbox, KEYED, call("send", "toolu_01k"), call("look", "toolu_01k"), service_down=True)
    assert value(down, 0).startswith("错误") and value(down, 1).startswith("unavailable") and not down.delivered_ids
    given = run(sandbox, KEYED, call("ask", {"$lookup": {"answers": {"toolu_01k": "已发送"}, "down": False}},
                                     "send_email", "toolu_01k", report_args=True),
                call("ask", {"$lookup": {"answers": {}, "down": True}}, "send_email", "toolu_01k"))
    assert value(given, 0) == "已发送" and value(given, 1) == "unavailable"
    assert given.steps[0]["args_after"][0] is None  # the grader's lookup is not the student's data


NOTEBOOK_LIKE = '''
import importlib.util, inspect, json, os, re, smtplib, sys
from email.message import EmailMessage
from pathlib import Path

import course, course.model, course.tools
from course import execute_tool, make_client

ENV_AT_DEFINITION = sorted(os.environ)  # a notebook has the mail server's variables only inside `with MailServer():`

def _fresh(module):
    """The module's file, loaded again: what the course's code is, whatever was done to the loaded one."""
    spec = importlib.util.spec_from_file_location(module.__name__ + "_fresh", module.__file__)
    fresh = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fresh
    spec.loader.exec_module(fresh)
    return fresh


def runtime_folder():
    """The connection file sys.argv names, and the folder it is in, as a kernel finds them."""
    connection = sys.argv[sys.argv.index("-f") + 1]
    with open(connection) as file:
        fields = sorted(json.load(file))
    return [fields, sorted(name.split("-")[0] for name in os.listdir(os.path.dirname(connection))),
            oct(os.stat(connection).st_mode & 0o777), os.stat(connection).st_uid == os.getuid(),
            os.path.exists(sys.argv[0])]


def look(client):
    tools, model = _fresh(course.tools), _fresh(course.model)
    own = [execute_tool, course.lookup_effect, make_client, model.make_client]
    return {"pid": os.getpid(), "ppid": os.getppid(), "name": __name__,
            "main": sys.modules["__main__"].__dict__ is globals(), "argv": os.path.basename(sys.argv[0]),
            "cell": bool(re.fullmatch(rf"/tmp/ipykernel_{os.getpid()}/[0-9]+[.]py", look.__code__.co_filename)),
            "env": sorted(os.environ), "env_at_definition": ENV_AT_DEFINITION,
            "same_code": [execute_tool.__code__.co_code == tools.execute_tool.__code__.co_code,
                          course.lookup_effect.__code__.co_code == tools.lookup_effect.__code__.co_code,
                          make_client.__code__.co_code == model.make_client.__code__.co_code],
            "modules": [f.__module__ for f in own[:3]],
            "closures": [f.__closure__ for f in own[:3]],
            "read_file": [course.tools.read_file.__name__, course.tools.read_file.__module__,
                          inspect.getsource(course.tools.read_file) == inspect.getsource(tools.read_file),
                          str(inspect.signature(course.tools.read_file))],
            "client": [str(client.base_url), client.api_key, type(client._client._transport).__name__,
                       client._client._transport.handler.__code__ is make_client()._client._transport.handler.__code__,
                       client._client._transport.handler.__module__, str(make_client().base_url)],
            "mail_server": course.MailServer.__module__,
            "streams": [(type(stream).__module__, type(stream).__name__, stream.write("输出"), stream.isatty())
                        for stream in (sys.stdout, sys.stderr)],
            "shell": [type(get_ipython()).__module__, type(get_ipython()).__name__, "ipykernel" in sys.modules],
            "proc": [sorted(n for n in os.listdir("/proc") if n.isdigit()), os.readlink("/proc/self"),
                     re.search(r"Pid:\t([0-9]+)", open("/proc/self/status").read()).group(1),
                     open("/proc/self/cmdline").read().split(chr(0))[1:3], open("/proc/1/comm").read().strip(),
                     "JPY_PARENT_PID=1" in open(f"/proc/{os.getpid()}/environ").read(), len(open("/proc/cpuinfo").read()) > 0,
                     "COURSE_" in open(f"/proc/{os.getpid()}/environ").read()],
            "runtime": runtime_folder(),
            "stdin": [os.fstat(0).st_mode & 0o170000 == 0o010000, sys.stdin.name, sys.stdin.fileno(), sys.stdin.read(),
                      sys.__stdin__ is sys.stdin],
            "ids": [re.search(r"Uid:\t(.*)", open("/proc/self/status").read()).group(1).split("\t"), os.getresuid(),
                    re.search(r"Gid:\t(.*)", open("/proc/self/status").read()).group(1).split("\t"), os.getresgid()],
            "session": [__session__ == os.environ["JPY_SESSION_NAME"],
                        os.path.dirname(__session__) == os.getcwd() and os.path.isfile(__session__)]}


def send_around():
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "agent@example.com", "team@example.com", "绕开 execute_tool"
    message.set_content("直接连 SMTP")
    with smtplib.SMTP("127.0.0.1", int(os.environ["COURSE_SMTP_PORT"]), timeout=10) as smtp:
        smtp.send_message(message)
    course.tools.send_email("team@example.com", "也绕开 execute_tool")
    return len(course.tools.read_maildir(Path(os.environ["COURSE_MAILDIR"])))


def write_the_maildir():
    try:
        (Path(os.environ["COURSE_MAILDIR"]) / "new" / "forged").write_text("x")
    except OSError as error:
        return type(error).__name__
    return "written"
'''


def test_student_code_meets_what_the_notebook_gives_it(sandbox):
    """Nothing the student's code can inspect tells the grader from a notebook's kernel: the course's own
    execute_tool, lookup_effect and make_client (code and module), the offline client as make_client makes
    it, a kernel's pid, argv (its connection file there, in Jupyter's runtime folder), environment and cell file
    names, and `__name__ == "__main__"`."""
    notebook = {f"{sandbox.lesson.notebook}.ipynb": b"{}"}
    seen = value(run(sandbox, NOTEBOOK_LIKE, call("look", {"$client": True}), decor=notebook))
    assert 1000 <= seen["pid"] and seen["ppid"] == 1
    assert seen["name"] == "__main__" and seen["main"] and seen["argv"] == "ipykernel_launcher.py" and seen["cell"]
    assert {"JPY_PARENT_PID", "JPY_SESSION_NAME", "MPLBACKEND", "PYDEVD_USE_FRAME_EVAL", "HOME", "PATH",
            "TERM"} <= set(seen["env"])
    assert seen["session"] == [True, True]  # the notebook JupyterLab named is there, in the working folder
    assert not any(name.startswith(("AUTOGRADER", "COURSE_OFFLINE")) for name in seen["env"])
    assert {"COURSE_SMTP_PORT", "COURSE_MAILDIR"} <= set(seen["env"])  # a step runs as inside `with MailServer():`
    assert not any(name.startswith("COURSE_") for name in seen["env_at_definition"])
    assert seen["same_code"] == [True, True, True]
    assert seen["modules"] == ["course.tools", "course.tools", "course.model"] and seen["closures"] == [None] * 3
    assert seen["read_file"] == ["read_file", "course.tools", True, "(path: str) -> str"]
    assert seen["client"] == ["https://api.anthropic.com", "offline", "MockTransport", True, "course.model",
                              "https://api.anthropic.com"]
    assert seen["mail_server"] == "course.mail"
    assert seen["streams"] == [["ipykernel.iostream", "OutStream", 2, False]] * 2  # print goes to the front end
    assert seen["shell"] == ["ipykernel.zmqshell", "ZMQInteractiveShell", True]
    pid = str(seen["pid"])
    assert seen["proc"] == [sorted(["1", pid]), pid, pid, ["-m", "ipykernel_launcher"], "jupyter-lab", True, True,
                           False]
    assert seen["stdin"] == [True, "<stdin>", 0, "", True]  # a pipe, its writing end closed, as jupyter_client's
    assert seen["ids"] == [["1000"] * 4, [1000] * 3, ["1000"] * 4, [1000] * 3]  # /proc/self/status says who it runs as
    assert seen["runtime"] == [sorted(["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port", "ip", "key",
                                       "transport", "signature_scheme", "kernel_name"]),
                               ["jpserver", "jpserver", "jupyter_cookie_secret", "kernel"], "0o600", True, True]


KERNEL_AND_MACHINE = """
import os, sys, time

def read(name):
    with open(name) as file:
        return file.read()

def look():
    uptime = read("/proc/uptime")
    time.sleep(0.05)
    return {"orig_argv": sys.orig_argv == read("/proc/self/cmdline").split(chr(0))[:-1],
            "launcher": sys.orig_argv[1:] == ["-m", "ipykernel_launcher", *sys.argv[1:]],
            "uptime_moves": read("/proc/uptime") != uptime, "cgroup": read("/proc/self/cgroup"),
            # how long ago the process and its parent began, as /proc/<pid>/stat's field 22 says
            "ages": [float(uptime.split()[0]) - int(read(f"/proc/{pid}/stat").rpartition(")")[2].split()[19])
                     / os.sysconf("SC_CLK_TCK") for pid in (os.getpid(), os.getppid())]}
"""


def test_the_kernel_s_command_line_and_the_machine_s_live_proc_files(sandbox):
    """sys.orig_argv is the command line /proc shows (ipykernel_launcher's, as sys.argv says); /proc/uptime and the
    machine's other files move on as in a kernel; /proc/self/cgroup is there, at its hierarchies' roots; the kernel
    began 10 minutes to 3 hours ago and its server before it, as a student's (or, on a machine up for less, since
    nearly its boot), not seconds ago as the step's process."""
    seen = value(run(sandbox, KERNEL_AND_MACHINE, call("look")))
    assert seen["orig_argv"] and seen["launcher"] and seen["uptime_moves"]
    with open("/proc/uptime") as uptime:
        up = float(uptime.read().split()[0])
    kernel, server = seen["ages"]
    assert min(600, up * 0.9) - 1 <= kernel <= 3 * 3600 + 600 and kernel < server  # (the test may take minutes)
    assert seen["cgroup"] and all(line.endswith(":/") for line in seen["cgroup"].splitlines())


def test_an_email_sent_around_execute_tool_reaches_the_grader_s_server(sandbox):
    outcome = run(sandbox, NOTEBOOK_LIKE, call("send_around"), call("write_the_maildir"))
    assert value(outcome, 0) == 2  # both arrived, and the step reads them where course.MailServer keeps them
    assert outcome.emails_during_steps() == 2
    assert [c["name"] for c in outcome.tool_calls] == ["send_email"]  # course.tools.send_email is the grader's too
    assert value(outcome, 1) == "OSError"  # read-only: the record of what arrived is the grader's
    down = run(sandbox, NOTEBOOK_LIKE, call("send_around"), service_down=True)
    assert down.steps[0]["status"] == "raised" and not down.delivered_ids


OWN_MAIL_SERVER = '''
from course import MailServer, execute_tool

def noop():
    return None

def send_at_its_own_server():
    with MailServer():
        return execute_tool("send_email", {"to": "a@example.com", "subject": "x"})
'''


def test_mail_sent_through_a_server_the_step_starts_is_its_own_and_reported(sandbox):
    """In a notebook, `with MailServer():` inside the student's function sends to that new server: so here, past the
    grader's (which gets nothing), and the outcome says which step did it (the feedback explains it, autograder.judge)."""
    outcome = run(sandbox, OWN_MAIL_SERVER, call("noop"), call("send_at_its_own_server"))
    assert "a@example.com" in value(outcome, 1)  # its own server took the email
    assert outcome.emails_during_steps() == 0 and outcome.tool_calls == []
    assert outcome.mail_elsewhere == [1]


A_NEW_PYTHON = '''
import subprocess, sys

def send_from_a_new_python():
    sent = subprocess.run([sys.executable, "-c", "from course import execute_tool; "
                           "print(execute_tool('send_email', {'to': 'a@example.com', 'subject': 'x'}))"],
                          capture_output=True, text=True, timeout=60)
    return sent.returncode, sent.stderr[-300:]
'''


def test_a_python_the_step_starts_imports_the_course_and_its_email_is_counted(sandbox):
    """A process the student's code starts has no PYTHONPATH: it finds `course` as the installation maps it (an
    editable install: at the repository's path), as in the student's notebook; what it sends reaches the grader."""
    outcome = run(sandbox, A_NEW_PYTHON, call("send_from_a_new_python"))
    assert value(outcome) == [0, ""]
    assert outcome.emails_during_steps() == 1


THREADS = '''
import threading
from course import execute_tool

def at_once():
    outputs, ready = [], threading.Barrier(12)

    def call():
        ready.wait()
        for _ in range(4):
            outputs.append(execute_tool("list_dir", {"path": "./notes"}))

    threads = [threading.Thread(target=call) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted({output.splitlines()[0] for output in outputs})
'''


def test_tool_calls_from_many_threads_at_once_each_reach_the_grader(sandbox):
    outcome = run(sandbox, THREADS, call("at_once"))
    assert len(value(outcome)) == 1 and not value(outcome)[0].startswith("错误")
    assert [c["name"] for c in outcome.tool_calls] == ["list_dir"] * 48


NOTED_AND_ASKED = """
from course.tools import lookup_effect

def note(line):
    with open("ledger.jsonl", "a") as ledger:
        ledger.write(line + "\\n")

def ask(key):
    return lookup_effect("send_email", key)
"""


def test_a_step_s_files_are_read_as_it_begins_and_a_lookup_answers_as_the_step_says(sandbox):
    """read_before: the text of the files as the step began (after the steps before it in its process);
    lookup_answers: what lookup_effect answers for a key the mail server has, in place of its own answer."""
    email = {"to": "team@example.com", "subject": "本周结论"}
    outcome = run(sandbox, NOTED_AND_ASKED, call("note", "a", batch="b"),
                  call("note", "b", batch="b", read_before=["ledger.jsonl"]),
                  call("ask", "k1", batch="b", lookup_answers={"k1": ""}), call("ask", "k1", batch="b"),
                  call("ask", "k2", batch="b", lookup_answers={"k2": ""}), emails_before=((email, "k1"),))
    assert outcome.read_before == {1: {"ledger.jsonl": "a\n"}}
    assert value(outcome, 2) == "" and "本周结论" in value(outcome, 3)
    assert value(outcome, 4) is None, "the server has no email with that key: None, whatever the step says"


KEPT_OPEN = """
import os

kept = []

def append(line):
    if not kept:
        kept.append(os.open("ledger.jsonl", os.O_WRONLY | os.O_APPEND))
    os.write(kept[0], (line + "\\n").encode())

def read(name):
    try:
        with open(name) as file:
            return file.read()
    except FileNotFoundError:
        return None
"""


def test_files_change_between_two_steps_of_one_process_as_the_later_one_begins(sandbox):
    """files_before inside a batch: made by the grader as that step begins, while its process waits: a file
    replaced, one removed, and one appended to in place (a descriptor the process kept open sees those bytes);
    strace records none of it as the step's."""
    outcome = run(sandbox, KEPT_OPEN, call("append", "a", batch="b"), call("append", "c", batch="b"),
                  call("read", "cp.json", batch="b"), call("read", "gone.txt", batch="b"),
                  files={"ledger.jsonl": "", "cp.json": "old", "gone.txt": "x"}, read_after=("ledger.jsonl",),
                  files_before={1: {"ledger.jsonl": Appended(b"b\n")}, 2: {"cp.json": "new"}, 3: {"gone.txt": None}})
    assert outcome.files_after["ledger.jsonl"] == "a\nb\nc\n"
    assert value(outcome, 2) == "new" and value(outcome, 3) is None
    assert not [e for e in outcome.fs_events if e["op"] in ("rename", "unlink")]
    assert b"".join(e["data"] for e in outcome.fs_events if e["op"] == "write") == b"a\nc\n"
