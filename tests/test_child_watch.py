"""What the student's process waits for after its steps besides Python's own threads and alarms (autograder.child):
a thread started with pthread_create through ctypes, and a timer_create timer. Each was a way for a submission to
send an email again after the step had ended (tests/grading/variants*/tamper_resend_native_thread, _posix_timer).
Run in a process of its own: the watch keeps two descriptors at fixed numbers."""
import os
import subprocess
import sys
import textwrap

from autograder.notebook_code import ROOT

PROGRAM = textwrap.dedent('''
    import ctypes, time
    from autograder import child
    child._keep_own_tasks_and_timers({"isolated": False})
    seen = [child._untracked_threads(), child._posix_timer_armed()]

    libc = ctypes.CDLL(None)
    sleeper = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(lambda _: libc.usleep(300_000))
    thread = ctypes.c_ulong()
    libc.pthread_create(ctypes.byref(thread), None, sleeper, None)
    seen.append(child._untracked_threads())  # a thread the threading module does not know
    libc.pthread_join(thread, None)
    seen.append(child._untracked_threads())

    timer = ctypes.c_void_p()
    libc.timer_create(1, None, ctypes.byref(timer))  # CLOCK_MONOTONIC, SIGALRM when it goes off
    seen.append(child._posix_timer_armed())  # made, not armed
    spec = (ctypes.c_long * 4)(0, 0, 100, 0)  # no interval; goes off in 100 s
    libc.timer_settime(timer, 0, spec, None)
    seen.append(child._posix_timer_armed())
    libc.timer_settime(timer, 0, (ctypes.c_long * 4)(), None)
    seen.append(child._posix_timer_armed())

    import os
    os.dup2(os.open("/", os.O_RDONLY | os.O_DIRECTORY), child.TASKS_FD)  # the student's code reused the descriptor
    seen.append(child._untracked_threads())
    print(seen)
''')


def test_native_threads_and_posix_timers_are_seen():
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # as in the zygote (isolation.sandbox_env): numpy starts no threads
    run = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[0, False, 1, 0, False, True, False, 1]"
