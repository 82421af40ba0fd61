"""The calls that change files besides write and open (autograder.untraced): the ones strace now stops at are
recorded, the ones it does not fail in the step before they change anything."""
import os
import subprocess
import sys

import pytest

from autograder import fs_trace
from autograder.crash_states import FileSystem
from autograder.untraced import filter_program

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_names_made_and_removed_without_open_or_unlink_are_recorded():
    """os.rmdir (TemporaryDirectory's cleanup), os.symlink, os.mkfifo, os.mknod: strace did not stop at them, so a
    folder made and removed looked left behind, and a name could appear in the working folder unseen."""
    lines = [(7, 'mkdir("d", 0777) = 0', 1), (7, 'rmdir("d") = 0', 2), (7, 'symlink("t", "l") = 0', 3),
             (7, 'symlinkat("t", 3</w>, "l3") = 0', 4), (7, 'mknodat(AT_FDCWD</w>, "f", S_IFIFO|0666) = 0', 5),
             (7, 'mknod("/w/r", S_IFREG|0600) = 0', 6), (7, 'rmdir("/w/gone") = -1 ENOENT (No such file)', 7)]
    assert [(r["op"], r["path"]) for r in fs_trace.events(lines, 0, "/w")] == [
        ("mkdir", "/w/d"), ("rmdir", "/w/d"), ("mknod", "/w/l"), ("mknod", "/w/l3"), ("mknod", "/w/f"),
        ("mknod", "/w/r")]
    assert set(fs_trace.TRACED.split(",")) >= {"rmdir", "symlink", "symlinkat", "mknod", "mknodat"}


def test_a_name_mknod_made_is_an_empty_file_durable_once_its_folder_is():
    model = FileSystem({})
    model.apply({"op": "mknod", "path": "/w/cp.json"})
    assert model.content("/w/cp.json") == b"" and model.after_power_cut("/w/cp.json") == {None, b""}
    model.apply({"op": "fsync", "path": "/w", "fd": 4})
    assert model.after_power_cut("/w/cp.json") == {b""}


FILTERED = '''
import ctypes, errno, os, sys
from autograder.untraced import filter_program
libc = ctypes.CDLL(None, use_errno=True)

class Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

program = filter_program(os.uname().machine)
instructions = (Instruction * len(program))(*program)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(Program(len(program), instructions)), 0, 0) == 0  # PR_SET_SECCOMP
empty, filled = os.pipe()
os.write(filled, b"{}")
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
found = {}
for name, call in [("splice", lambda: os.splice(empty, fd, 2)),
                   ("fallocate", lambda: libc.fallocate(fd, 0, ctypes.c_int64(0), ctypes.c_int64(4096)))]:
    ctypes.set_errno(0)
    try:
        found[name] = errno.errorcode.get(ctypes.get_errno()) if call() == -1 else "done"
    except OSError as error:
        found[name] = errno.errorcode[error.errno]
os.posix_fallocate(fd, 0, 2)
child = os.fork()
if child == 0:
    os._exit(libc.ptrace(0, 0, None, None) + 1)  # PTRACE_TRACEME
found["traceme"] = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) - 1
found["attach"] = libc.ptrace(16, os.getpid(), None, None)  # PTRACE_ATTACH to itself: EPERM, as in a notebook
print(found, os.fstat(fd).st_size)
'''


@pytest.mark.skipif(filter_program(os.uname().machine) is None, reason="no seccomp filter for this architecture")
def test_the_steps_filter_stops_untraced_writes_and_lets_a_child_ask_to_be_traced(tmp_path):
    """splice wrote a checkpoint strace never saw (probe 11, tamper_reconcile_splice_save); fallocate answers as a
    file system without it, and glibc's posix_fallocate then writes its zeros with pwrite64, which strace sees.
    PTRACE_TRACEME failed under strace -f only (tamper_detect_ptrace); other ptrace requests go to the kernel."""
    run = subprocess.run([sys.executable, "-c", FILTERED, str(tmp_path / "cp.json")], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["{'splice':", "'ENOSYS',", "'fallocate':", "'ENOTSUP',", "'traceme':", "0,",
                                  "'attach':", "-1}", "2"]


def test_the_filter_is_built_for_each_architecture_it_knows():
    for machine in ("x86_64", "aarch64", "riscv64"):
        program = filter_program(machine)
        assert program and program[-1][3] == 0x7FFF0000  # ends in SECCOMP_RET_ALLOW
        assert all(jt < len(program) - n and jf < len(program) - n for n, (_, jt, jf, _) in enumerate(program))
    assert filter_program("mips") is None
