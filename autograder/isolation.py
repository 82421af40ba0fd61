"""Whether, and how, the sandbox is isolated: bubblewrap's view of the machine, the probe that says
whether namespaces can be made here, and the refusal (or the instructor's accepted risk) when not.

Where namespaces cannot be made (bubblewrap missing, user namespaces disabled), a Sandbox refuses
to start (`IsolationUnavailable`, Chinese and English) unless the instructor accepts the risk with
`--allow-unisolated` (environment AUTOGRADER_ALLOW_UNISOLATED=1): then steps run as the grader's own
user, with strace still watching. AUTOGRADER_BWRAP names the bubblewrap binary (default: `bwrap` on PATH).
"""
import os
import shutil
import subprocess
import sys

from .child import SYS_CLONE
from .guise import PROC_FOLDER
from .notebook_code import ROOT
from .pids_cgroup import controller_root

# Paths inside the sandbox, named as a student's machine might name them: no "sandbox" or "grader" in what
# the student's code can see (os.getcwd(), course.__file__, sys.path, a listing of /run).
SANDBOX_UID = 65534  # "nobody" inside the sandbox's own user namespace (a step's own maps it to 1000)
APP_INSIDE = "/home/student/bundle"  # course/, read-only
# course/ where an editable install (pip install -e .) maps it, bound there too: a process the student's code starts
# has no PYTHONPATH, and imports the course from there, as it would on the instructor's machine
COURSE_INSTALLED = str(ROOT / "course")
DRIVER_INSIDE = "/opt/kernel"  # the driver (autograder.child and what it imports), read-only; hidden from each step
WORK_INSIDE = "/home/student/work"
SCRATCH_INSIDE = ("/tmp", "/dev/shm")  # where a step may write besides its working folder: all else is read-only
# where each scenario's /tmp and /dev/shm are kept from step to step (a tmpfs; each step binds them and hides it)
KEPT_SCRATCH_INSIDE = "/home/student/.cache/tmp"
SOCKET_DIR_INSIDE = "/run/user/1000"
SOCKET_NAME = "notebook.sock"
HANDOFF_NAME = "handoff.sock"  # where each step's first process hands over its SMTP port (autograder.endpoint)
DRIVER_FILES = ("__init__.py", "child.py", "protocol.py", "guise.py", "contract.py", "armed.py",
                "untraced.py")
ALLOW_ENV = "AUTOGRADER_ALLOW_UNISOLATED"
BWRAP_ENV = "AUTOGRADER_BWRAP"
ALLOW_FLAG = "--allow-unisolated"


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
    strace_path()
    problem = isolation_problem()
    if problem is None:
        return True
    if not unisolated_allowed():
        raise IsolationUnavailable(isolation_refusal(problem))
    print(f"警告：评分沙箱没有隔离（{problem}），按 {ALLOW_FLAG} 的要求照常评分。/ WARNING: grading without "
          f"isolation ({problem}), as {ALLOW_FLAG} asks.", file=sys.stderr)
    return False


def strace_path() -> str:
    found = shutil.which("strace")
    if found is None:
        raise SandboxError("评分需要 strace（Debian/Ubuntu：sudo apt-get install strace），它从沙箱外面记录文件操作。\n"
                           "Grading needs strace (Debian/Ubuntu: sudo apt-get install strace): it records the "
                           "sandbox's file operations from outside.")
    return found


def bwrap_path() -> str | None:
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
    bwrap = bwrap_path()
    if bwrap is None:
        return f"找不到 bubblewrap（{os.environ.get(BWRAP_ENV) or 'bwrap'}）/ bubblewrap not found"
    try:
        probe = subprocess.run([bwrap, *bwrap_options(), sys.executable, "-c", NESTED_PROBE],
                               capture_output=True, text=True, timeout=60, env=sandbox_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap 无法运行 / bubblewrap does not run: {exc}"
    if probe.returncode != 0:
        return f"bubblewrap 无法创建命名空间 / bubblewrap cannot create namespaces: {probe.stderr.strip()[-300:]}"
    return None


def bwrap_options(socket_dir: str | None = None, work_size: int = 0, proc: str | None = None,
                  etc: str | None = None, runtime: tuple | None = None, scratch_size: int = 0) -> list:
    """bubblewrap's view of the machine: system libraries, the interpreter, course/ and the driver only."""
    options = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
               "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", os.uname().nodename,
               "--tmpfs", "/tmp"]
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
    options += ["--ro-bind", COURSE_INSTALLED, f"{APP_INSIDE}/course", "--ro-bind", COURSE_INSTALLED, COURSE_INSTALLED]
    for name in DRIVER_FILES:
        options += ["--ro-bind", str(ROOT / "autograder" / name), f"{DRIVER_INSIDE}/autograder/{name}"]
    options += ["--proc", "/proc", "--dev", "/dev"]
    for size, folder in ((work_size, WORK_INSIDE), (scratch_size, KEPT_SCRATCH_INSIDE)):
        if size:
            options += ["--size", str(size), "--tmpfs", folder]
    if socket_dir:
        options += ["--ro-bind", socket_dir, SOCKET_DIR_INSIDE]
    if proc:  # the grading session's /proc (autograder.guise), which each step binds over the sandbox's
        options += ["--ro-bind", proc, f"{DRIVER_INSIDE}/{PROC_FOLDER}"]
    for name in sorted(os.listdir(etc)) if etc else ():  # autograder.guise.etc_files, written there by the sandbox
        options += ["--ro-bind", f"{etc}/{name}", f"/etc/{name}"]
    if runtime:  # (folder, where): autograder.guise.runtime_files, where the kernel's sys.argv names them
        options += ["--ro-bind", *runtime]
    return options + ["--chdir", "/tmp", "--"]


def python_prefixes() -> list:
    """The interpreter's and the venv's folders, outside /usr (bound read-only at the same path)."""
    bound = []
    for prefix in sorted({sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix}):
        if prefix != "/usr" and not prefix.startswith("/usr/") and not any(prefix.startswith(p + "/") for p in bound):
            bound.append(prefix)
    return bound


def sandbox_env(path: str = f"{APP_INSIDE}:{DRIVER_INSIDE}") -> dict:
    """The zygote's environment. OpenBLAS (numpy's, loaded there by autograder.armed) starts no threads: a step's
    process is cloned without libc's fork handlers, and the first os.fork in it would wait for ever in OpenBLAS's
    handler for threads it does not have. No PYTHONDONTWRITEBYTECODE: a kernel writes the bytecode of what it imports
    (sys.dont_write_bytecode and sys.flags.dont_write_bytecode are false there), and in the sandbox only a module the
    student's code wrote into its own folders can be written beside (what the zygote imports is read-only)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "COURSE_OFFLINE": "1",
            "PYTHONPATH": path, "OPENBLAS_NUM_THREADS": "1"}
