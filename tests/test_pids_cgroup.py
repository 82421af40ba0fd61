"""autograder.pids_cgroup: the process limit that binds a root grader (RLIMIT_NPROC does not)."""
import os
import subprocess
import sys
import time

import pytest

from autograder import pids_cgroup

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or pids_cgroup.controller_root() is None,
                                reason="needs root and a writable pids cgroup (as in CI)")

FORKS = """
import os, sys, time
made = 0
for _ in range(50):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        made += 1
    except OSError:
        break
print(made, flush=True)
time.sleep(30)
"""


def test_a_root_process_cannot_fork_past_the_limit_and_the_refusal_is_seen():
    cgroup = pids_cgroup.PidsCgroup(8)
    try:
        process = subprocess.Popen(cgroup.wrap([sys.executable, "-c", FORKS]), stdout=subprocess.PIPE, text=True)
        made = int(process.stdout.readline())
        assert made == 8 - 1, made  # the python process itself is one of the eight
        assert cgroup.tasks() == 8
        assert cgroup.limit_was_hit() and not cgroup.limit_was_hit()
    finally:
        cgroup.close()
    process.wait(timeout=10)
    assert not cgroup.path.exists()


def test_the_cgroup_of_a_killed_grader_is_emptied_and_removed():
    grader = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    root = pids_cgroup.controller_root()
    abandoned = root / f"{pids_cgroup.PREFIX}{grader.pid}-1"
    abandoned.mkdir()
    straggler = subprocess.Popen(["/bin/sh", "-c", 'echo $$ > "$0" && exec sleep 60',
                                  str(abandoned / "cgroup.procs")])
    time.sleep(0.3)
    pids_cgroup.remove_abandoned(root)
    assert abandoned.exists(), "its grader still runs"
    grader.kill()
    grader.wait()
    pids_cgroup.remove_abandoned(root)
    assert straggler.wait(timeout=10) == -9
    assert not abandoned.exists()
