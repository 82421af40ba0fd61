"""A pids cgroup around each sandbox of a root grader.

RLIMIT_NPROC, the sandbox's process limit for an ordinary instructor, does not bind a
process whose real uid is root (the kernel lets CAP_SYS_RESOURCE past it), and the
sandbox's own user namespace maps its uid back to root: a fork bomb graded as root once
reached 926 processes. The pids controller binds every uid alike. A root grader puts each
sandbox (strace, bubblewrap, the zygote and every step's processes and threads) in a
cgroup of its own with `pids.max`; an ordinary instructor has RLIMIT_NPROC and no cgroup.

Both hierarchies are supported: cgroup v1's pids mount, and cgroup v2's root when it
delegates pids (cgroup.subtree_control). The cgroup is made at the top of the hierarchy,
where v2 allows a cgroup with processes beside others.
"""
import os
import time
from pathlib import Path

PREFIX = "course-grader-"


def controller_root() -> Path | None:
    """Where a root grader can make pids cgroups, or None."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split()
        if len(fields) < 4:
            continue
        where, kind, options = Path(fields[1]), fields[2], fields[3].split(",")
        if kind == "cgroup" and "pids" in options:
            found = where
        elif kind == "cgroup2" and "pids" in _words(where / "cgroup.subtree_control"):
            found = where
        else:
            continue
        if os.access(found, os.W_OK):
            return found
    return None


def _words(path: Path) -> list:
    try:
        return path.read_text().split()
    except OSError:
        return []


class PidsCgroup:
    """One cgroup, `pids.max` tasks at most; `wrap(command)` starts a command inside it."""

    def __init__(self, limit: int, root: Path | None = None):
        self.root = root or controller_root()
        if self.root is None:
            raise OSError("没有可写的 pids cgroup / no writable pids cgroup")
        remove_abandoned(self.root)
        self.path = self.root / f"{PREFIX}{os.getpid()}-{time.monotonic_ns()}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(limit))
        self.refused = 0  # forks refused so far (pids.events: "max N")

    def limit_was_hit(self) -> bool:
        """Whether a fork was refused since the last call."""
        words = _words(self.path / "pids.events")
        refused = int(words[words.index("max") + 1]) if "max" in words else 0
        hit, self.refused = refused > self.refused, refused
        return hit

    def wrap(self, command: list) -> list:
        """The command, started by a shell that first moves itself into the cgroup (so that nothing the
        command forks can start outside it) and then execs the command."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs"), *command]

    def tasks(self) -> int:
        return len(_words(self.path / "cgroup.procs"))

    def close(self) -> None:
        """Kill what is left in it (the zygote is killed first; a straggler dies here) and remove it."""
        _empty_and_remove(self.path)


def _empty_and_remove(path: Path) -> None:
    for _ in range(50):
        pids = _words(path / "cgroup.procs")
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(int(pid), 9)
            except (OSError, ValueError):
                pass
        time.sleep(0.02)
    try:
        path.rmdir()
    except OSError:
        pass


def remove_abandoned(root: Path) -> None:
    """The cgroups of graders that were killed (their pid is gone), with whatever still runs in them: a
    grader killed with SIGKILL leaves its sandboxes' processes behind, stopped under a dead strace."""
    for folder in root.glob(f"{PREFIX}*"):
        try:
            os.kill(int(folder.name[len(PREFIX):].split("-")[0]), 0)
        except ProcessLookupError:
            _empty_and_remove(folder)
        except (ValueError, OSError):
            pass
