"""What the student's code finds where it might look to tell the grader from a notebook's kernel.

Inside the sandbox (autograder.child imports it, bound read-only beside it). A student's code may look at
the functions it calls, at `__name__`, `sys.argv`, its pid and its parent's, its environment and /proc; the
grader gives it what a Jupyter kernel gives it there, so that no answer can depend on being graded:

- `looking_like(original, forward)`: a stand-in with the original's name, module, documentation, signature
  and source lines (what the course's tools, lookup and offline model become, the grader doing their work);
- `as_in_a_kernel(...)`: the cells' code is `__main__`, sys.argv is ipykernel's, IPython's names are there;
- `cell_file(source)`: where a kernel says a cell's code comes from;
- `proc_entries(...)`: a /proc of the step's own: the student's process and its parent (pid 1, a Jupyter
  server), with the machine's own cpuinfo, meminfo and the like.

What stays different, and why, is in docs/grading.md (a determined reader of bytecode or of every /proc file
can still tell; the names above are the places a submission is known to look).
"""
import inspect
import os
import sys
import zlib

PROC_COPIED = ("cpuinfo", "meminfo", "version", "loadavg", "uptime", "stat", "filesystems")  # the machine's own
STATUS_PIDS = ("Tgid", "Pid", "NStgid", "NSpid", "NSpgid", "NSsid")


def looking_like(original, forward):
    """A function that hands its call, as (args, kwargs), to `forward`, and that inspection cannot tell from
    `original`: the same name, qualified name, module, documentation, annotations, signature and source lines
    (inspect.getsource and tracebacks show the original's). Only its closure and its bytecode differ."""
    def stand_in(*args, **kwargs):
        return forward(args, kwargs)

    code = original.__code__
    renamed = {"co_qualname": code.co_qualname} if hasattr(code, "co_qualname") else {}  # Python 3.11+
    stand_in.__code__ = stand_in.__code__.replace(co_name=code.co_name, co_filename=code.co_filename,
                                                  co_firstlineno=code.co_firstlineno, **renamed)
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
        setattr(stand_in, attribute, getattr(original, attribute))
    stand_in.__annotations__ = dict(original.__annotations__)
    stand_in.__signature__ = inspect.signature(original)
    return stand_in


def kernel_argv(launcher: str, connection_file: str) -> list:
    return [launcher, "-f", connection_file]


def as_in_a_kernel(module, argv: list, workdir: str, hidden: str | None):
    """The cells' module becomes `__main__`, with the names IPython defines in it; sys.argv is the kernel's; the
    driver's own modules are no longer importable or listed (`hidden`: the folder they came from)."""
    sys.modules["__main__"] = module
    for name in [name for name in sys.modules if name.split(".")[0] == __name__.split(".")[0]]:
        del sys.modules[name]
    if hidden is not None:
        sys.path[:] = [path for path in sys.path if path != hidden]
    sys.argv[:] = argv
    module.__dict__.update({"In": [""], "Out": {}, "_oh": {}, "_dh": [workdir], "_": "", "__": "", "___": "",
                            "__builtin__": sys.modules["builtins"]})


def cell_file(source: str) -> str:
    """Where a kernel says a cell's code comes from (its functions' co_filename): ipykernel_<pid>/<hash>.py."""
    return f"/tmp/ipykernel_{os.getpid()}/{zlib.crc32(source.encode())}.py"


def proc_entries(pid: int, own_status: str, own_stat: str, machine: dict, argv: list, env: dict, workdir: str,
                 executable: str) -> dict:
    """A /proc for a step: name -> text, or ("link", target). `own_status` and `own_stat` are /proc/self/status
    and /proc/self/stat of the process that writes it (their numbers are a plausible python's), renumbered for
    the student's process, `pid`, and for its parent, pid 1: a Jupyter server started from the same python."""
    server = [executable, os.path.join(os.path.dirname(executable), "jupyter-lab"), "--no-browser"]
    entries = {name: text for name, text in machine.items()}
    entries["self"] = ("link", str(pid))
    entries["mounts"] = ("link", "self/mounts")
    for number, parent, command in ((pid, 1, [executable, "-m", "ipykernel_launcher", *argv[1:]]), (1, 0, server)):
        entries[f"{number}/cmdline"] = "\0".join(command) + "\0"
        entries[f"{number}/comm"] = "python\n" if number == pid else "jupyter-lab\n"
        entries[f"{number}/status"] = _renumbered_status(own_status, number, parent)
        entries[f"{number}/stat"] = _renumbered_stat(own_stat, number, parent)
        entries[f"{number}/cwd"] = ("link", workdir)
        entries[f"{number}/exe"] = ("link", os.path.realpath(executable))
    entries[f"{pid}/environ"] = "".join(f"{key}={value}\0" for key, value in env.items())
    entries[f"{pid}/mounts"] = "/dev/root / ext4 rw,relatime 0 0\nproc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
    return entries


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
        elif key == "Name":
            line = "Name:\tpython" if parent else "Name:\tjupyter-lab"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _renumbered_stat(stat: str, pid: int, parent: int) -> str:
    """pid (comm) state ppid pgrp session ...: the numbers before the rest renumbered."""
    rest = stat.rpartition(")")[2].split()
    rest[1:4] = [str(parent), str(pid), str(pid)]
    return f"{pid} ({'python' if parent else 'jupyter-lab'}) {' '.join(rest)}\n"
