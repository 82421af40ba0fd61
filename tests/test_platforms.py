"""Which cells of the student notebook need a POSIX system, and that only those do.

The incident replay and the crash explorer start the agent with os.fork() and kill it with
SIGKILL; Windows has neither. The student README says so and sends Windows students to WSL
or the course's JupyterHub for those cells; the notebook shows a recorded replay beside them,
so the diagnosis can be made from it. This test runs the whole notebook, with every
answer filled in, in a kernel that has first been made to look like Windows: os.name is "nt",
a folder cannot be opened with os.open (PermissionError, so no folder fsync), and os.fork
and the other POSIX-only functions of `os`, signal.SIGKILL, multiprocessing's "fork" context
and the POSIX-only modules (fcntl, pwd, resource, ...) are gone. The cells that fail there
must be exactly the cells that fork on Linux (counted in a second, normal run), and must fail
because fork is missing: the saves and their visible checks pass.
"""
import json
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from grading.grading_corpus import build as build_variant
from student_env import ROOT

NOTEBOOK = "resume-from-checkpoint.ipynb"
# Counts the kernel's forks, so the normal run knows which cells fork.
COUNT_FORKS = """\
import os
_course_forks = []
os.register_at_fork(before=lambda: _course_forks.append(1))
"""
FORKS_SO_FAR = "print(len(_course_forks))"
# What Windows does not have. Modules already loaded by the kernel stay; new imports fail. pathlib keeps
# making POSIX paths (a WindowsPath cannot be built here), and the temporary folder is looked up first.
LIKE_WINDOWS = """\
import os, pathlib, signal, sys, multiprocessing, tempfile
tempfile.gettempdir()
os.name = "nt"
pathlib.WindowsPath, pathlib.PureWindowsPath = pathlib.PosixPath, pathlib.PurePosixPath
def _no_folders(real_open):
    def open_(path, flags, *args, **kwargs):
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)
    return open_
os.open = _no_folders(os.open)
import shutil
shutil._use_fd_functions = False  # rmtree walks by path, as on Windows, instead of opening each folder
for name in ("fork", "forkpty", "wait3", "wait4", "killpg", "getpgid", "setpgid", "setsid", "getuid", "geteuid",
             "getgid", "getegid", "getppid", "mkfifo", "pipe2", "sync", "WIFSIGNALED", "WTERMSIG", "WEXITSTATUS",
             "WIFEXITED", "register_at_fork"):
    if hasattr(os, name):
        delattr(os, name)
for name in ("SIGKILL", "SIGSTOP", "SIGALRM", "SIGCHLD", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGPIPE"):
    if hasattr(signal, name):
        delattr(signal, name)
_get_context = multiprocessing.get_context
def _windows_context(method=None):
    if method in ("fork", "forkserver"):
        raise ValueError(f"cannot find context for {method!r}")
    return _get_context(method)
multiprocessing.get_context = _windows_context
for name in ("fcntl", "grp", "pwd", "resource", "termios", "tty", "pty", "posix", "syslog", "crypt"):
    sys.modules.setdefault(name, None)
"""
FORK_MISSING = ("has no attribute 'fork'", "cannot find context for 'fork'", "has no attribute 'SIGKILL'")


def run(folder, prologue: str, probe: str = None) -> list:
    """[(cell index, error or None, probe output)] for every code cell, the prologue run first."""
    notebook = nbformat.read(str(folder / NOTEBOOK), as_version=4)
    client = NotebookClient(notebook, timeout=180, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})
    results = []
    with client.setup_kernel():
        client.execute_cell(nbformat.v4.new_code_cell(prologue), 0)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index)
            errors = [f"{o['ename']}: {o['evalue']}" for o in cell.outputs if o["output_type"] == "error"]
            seen = None
            if probe:
                counter = nbformat.v4.new_code_cell(probe)
                client.execute_cell(counter, index)
                seen = int(counter.outputs[0]["text"])
            results.append((index, errors[0] if errors else None, seen))
    return results


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    folder = tmp_path_factory.mktemp("platforms")
    for path in (ROOT / "release" / "lesson03").iterdir():
        if path.is_file() and path.name != NOTEBOOK:
            shutil.copy2(path, folder)
    (folder / NOTEBOOK).write_text(build_variant("full_reference"), encoding="utf-8")
    return folder


def test_only_the_forking_cells_need_posix(lesson, monkeypatch):
    monkeypatch.setenv("COURSE_OFFLINE", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    on_linux = run(lesson, COUNT_FORKS, FORKS_SO_FAR)
    failed_on_linux = [(index, error) for index, error, _ in on_linux if error]
    assert failed_on_linux == [], failed_on_linux
    forks, before = set(), 0
    for index, _, count in on_linux:
        if count > before:
            forks.add(index)
        before = count
    like_windows = {index: error for index, error, _ in run(lesson, LIKE_WINDOWS) if error}
    report = {"forking cells": sorted(forks), "failing without POSIX": like_windows}
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "platforms.json").write_text(json.dumps(report, ensure_ascii=False, indent=1))
    assert forks, "没有一个单元格 fork：回放和探索器的单元格去哪了？"
    assert set(like_windows) == forks, report
    assert all(any(text in error for text in FORK_MISSING) for error in like_windows.values()), report
    notebook = nbformat.read(str(lesson / NOTEBOOK), as_version=4)
    after_first_replay = notebook.cells[min(forks) + 1]
    assert after_first_replay.cell_type == "markdown" and "录下的一次回放" in after_first_replay.source
    assert "一共收到 2 封" in after_first_replay.source  # the diagnosis can be made from the recording


# --- the hidden tests: a save without the folder fsync passes on Windows only ----------------

OLD, NEW = b'{"version": 1, "turns": 1}', b'{"version": 1, "turns": 2}'


def save_records(folder_fsync: bool) -> list:
    """strace's records of a reference-style save over /w/ck.json, with or without the folder's fsync."""
    temporary, target = "/w/ck.json.tmp", "/w/ck.json"
    records = [{"op": "open", "path": temporary, "fd": 3, "flags": "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC"},
               {"op": "write", "path": temporary, "fd": 3, "data": NEW, "size": len(NEW), "offset": None},
               {"op": "fsync", "path": temporary, "fd": 3}, {"op": "close", "path": temporary, "fd": 3},
               {"op": "rename", "path": temporary, "dst": target}]
    if folder_fsync:
        records += [{"op": "open", "path": "/w", "fd": 4, "flags": "O_RDONLY|O_CLOEXEC"},
                    {"op": "fsync", "path": "/w", "fd": 4}, {"op": "close", "path": "/w", "fd": 4}]
    return records


@pytest.mark.parametrize("name, folder_fsync, survives", [("posix", True, True), ("posix", False, False),
                                                           ("nt", False, True)])
def test_the_hidden_power_cut_model_asks_for_the_folder_fsync_off_windows_only(monkeypatch, name, folder_fsync,
                                                                               survives):
    """After the save returned, a power cut must leave the new checkpoint; without the folder's fsync the rename
    may be undone, except on Windows, where a folder cannot be fsynced and the hidden tests do not ask for it."""
    import os

    from autograder.hidden_tests import crashes
    monkeypatch.setattr(os, "name", name)
    fs = crashes.file_system({"/w/ck.json": OLD})
    for record in save_records(folder_fsync):
        fs.apply(record)
    states = fs.after_power_cut("/w/ck.json")
    assert NEW in states
    assert (states == {NEW}) is survives, states
