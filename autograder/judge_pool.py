"""The grader's one pool of worker processes: notebooks in, the judge's verdicts out.

    with JudgePool(workers=3, lesson=lesson("lesson04")) as pool:   # lesson 3 when no lesson is named
        pool.put("alice", Path("build/grading/submitted/alice/lesson04/effects-and-idempotency.ipynb"))
        for key, verdict, failure in pool.results():
            ...  # verdict is None when no verdict could be had; failure then says why

`make grade` (autograder.classgrade) and the grading corpus judge through it; serial
grading is a pool of one. Each worker keeps one Judge, and so one sandbox zygote, for
its whole life: the zygote takes seconds to start and milliseconds to fork.

The pool is pebble's ProcessPool rather than a loop of our own or concurrent.futures:
pebble has what a grader needs and the standard library's pools lack, a timeout per
notebook that kills the stuck worker, and a new worker in place of one that died, with
only the notebook that worker was judging failing (ProcessExpired); a per-worker
initializer builds the worker's Judge. One case pebble treats as fatal: a worker dying
while no notebook is being judged anywhere breaks the whole pool. Nothing had started
then, so the notebooks handed over go to a fresh pool, unless pools keep breaking
before any verdict comes back, which means workers cannot start at all.

A notebook is handed to pebble only when a worker is free, so a notebook queued later
with `first=True` (a student to be graded again as blank) is judged next.
"""
import ctypes
import multiprocessing
import multiprocessing.util
import os
import signal
import traceback
from collections import deque
from concurrent.futures import FIRST_COMPLETED, TimeoutError, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from pebble import ProcessExpired, ProcessPool

from .judge import Judge
from .lessons import DEFAULT, Lesson

NOTEBOOK_DEADLINE = 900  # seconds for one notebook; the judge's own limits end every sandboxed step much sooner
MAX_BROKEN_POOLS = 3  # in a row, with no verdict in between: the workers cannot start
PR_SET_PDEATHSIG = 1

_judge = None  # the worker process's Judge, made by its initializer


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the grading process dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def start_worker(lesson: Lesson) -> None:
    """pebble's initializer: runs once in every new worker process."""
    global _judge
    _die_with_parent()
    os.setpgrp()  # Ctrl-C in the terminal reaches only the main process, which stops the pool
    signal.signal(signal.SIGINT, signal.default_int_handler)  # pebble ignores it; sandboxed code must not inherit that
    _judge = Judge(lesson=lesson)  # its seed, if any, from AUTOGRADER_SEED
    # pebble ends its workers with SIGTERM, which skips atexit but runs multiprocessing's finalizers.
    multiprocessing.util.Finalize(_judge, _judge.close, exitpriority=10)


def judge_file(path: Path) -> dict:
    return _judge.judge_file(path)


class JudgePool:
    """Judges notebooks of one lesson in `workers` processes."""

    def __init__(self, workers: int, deadline: float = NOTEBOOK_DEADLINE, lesson: Lesson = DEFAULT):
        self.workers = max(1, workers)
        self.lesson = lesson
        self.deadline = deadline
        self.waiting = deque()  # (key, path) not yet handed to pebble
        self.running = {}  # future -> (key, path, the pool it was handed to)
        self.broken_pools = 0
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPool:
        # fork: workers inherit the judge's modules, already imported here
        return ProcessPool(max_workers=self.workers, initializer=start_worker, initargs=(self.lesson,),
                           context=multiprocessing.get_context("fork"))

    def put(self, key, path: Path, first: bool = False) -> None:
        if first:
            self.waiting.appendleft((key, path))
        else:
            self.waiting.append((key, path))
        self._hand_over()

    def __len__(self) -> int:
        """Notebooks put and not yet judged."""
        return len(self.waiting) + len(self.running)

    def _hand_over(self) -> None:
        while self.waiting and len(self.running) < self.workers:
            key, path = self.waiting.popleft()
            try:
                future = self.pool.schedule(judge_file, args=(path,), timeout=self.deadline)
            except RuntimeError:  # pebble refuses work once the pool is broken
                self.waiting.appendleft((key, path))
                self._replace(self.pool)
                continue
            self.running[future] = (key, path, self.pool)

    def _replace(self, broken: ProcessPool) -> None:
        """A new pool in place of `broken`, once however many of its notebooks report it."""
        if broken is not self.pool:
            return
        self.broken_pools += 1
        if self.broken_pools >= MAX_BROKEN_POOLS:
            raise RuntimeError(f"评分进程连续 {self.broken_pools} 次没能启动（原因见上面的日志）")
        broken.stop()
        broken.join()
        self.pool = self._new_pool()

    def results(self):
        """(key, verdict, "") or (key, None, why) for every notebook put, in the order they finish.

        Notebooks may be put while this runs; it ends when none is left."""
        while self.running or self.waiting:
            self._hand_over()
            done, _ = wait(list(self.running), timeout=1.0, return_when=FIRST_COMPLETED)
            if not done:  # pebble can break a pool between taking a notebook and registering it: never resolved
                done = {future for future, (_, _, pool) in self.running.items() if not pool.active}
            for future in done:
                key, path, pool = self.running.pop(future)
                if not future.done():
                    self._replace(pool)
                    self.waiting.appendleft((key, path))
                    continue
                try:
                    verdict = future.result()
                except BrokenProcessPool:  # never started: judged in the next pool
                    self._replace(pool)
                    self.waiting.appendleft((key, path))
                    continue
                except TimeoutError:
                    failure = f"评判超过 {self.deadline:g} 秒，评分进程被结束"
                except ProcessExpired as died:
                    failure = f"评分进程意外退出（退出码 {died.exitcode}）"
                except Exception as error:  # the judge's own failure, with the worker's traceback
                    failure = "".join(traceback.format_exception(error))
                else:
                    self.broken_pools = 0
                    yield key, verdict, ""
                    continue
                self.broken_pools = 0
                yield key, None, failure

    def close(self) -> None:
        """Stops the workers (each closes its sandbox), judging or not."""
        self.pool.stop()
        self.pool.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
