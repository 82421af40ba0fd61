"""Autograde a whole class on every core, into one gradebook, resumably.

    python -m autograder.classgrade [lesson03] [--workers N] [--force] [nbgrader options...]

Run it in the course folder, like nbgrader; options it does not know (such as
`--CourseDirectory.db_url=postgresql://...`) go to nbgrader unchanged.

Each worker is a long-lived process that loads nbgrader and the course's
nbgrader_config.py once, then autogrades one student at a time with nbgrader's own
Autograde converter, exactly as `nbgrader autograde lesson03 --student ID` would.
Its output goes to a scratch folder, so a half-graded student never shows up in
autograded/.

The gradebook: with SQLite (one writer at a time) every student is graded into a
private gradebook and this process, the only writer, merges the result into the
main one (see gradebook_merge). A database server such as PostgreSQL takes many
writers: the workers then write into it directly, as several nbgrader instances
would.

Resuming: after a student's results are in the gradebook and autograded/, a record
keyed by a hash of the submitted files is written atomically to
.classgrade/<assignment>/<student>.json. A run grades the students with no record
or a stale one (a new submission), so an interrupted run picks up where it stopped,
and a student who submits again is regraded alone.

stderr carries a progress bar (done/total, rate, time left) and a summary in
Chinese; stdout carries one JSON line for scripts.
"""
import argparse
import ctypes
import hashlib
import json
import logging
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

from tqdm import tqdm

ASSIGNMENT = "lesson03"
STATE_DIR = ".classgrade"
PR_SET_PDEATHSIG = 1


# --- which students need grading ----------------------------------------------------------

def fingerprint(folder: Path) -> str:
    """sha256 over every file's relative path and bytes: changes when the student submits again."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def write_json_atomically(path: Path, data) -> None:
    """Write, fsync, rename over the target, fsync the folder: whole or not at all, even after a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


@dataclass
class Outcome:
    """What happened to one student in one run (also the resume record, with the fingerprint)."""
    student: str
    status: str  # "graded" | "failed" (nbgrader could not grade it) | "crashed" (the worker died or hung)
    seconds: float = 0.0
    error: str = ""
    fingerprint: str = ""
    score: float | None = None
    max_score: float | None = None


class Records:
    """The per-student resume records under .classgrade/<assignment>/."""

    def __init__(self, root: Path, assignment: str):
        self.folder = root / STATE_DIR / assignment

    def path(self, student: str) -> Path:
        return self.folder / f"{student}.json"

    def load(self, student: str) -> dict | None:
        try:
            return json.loads(self.path(student).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save(self, outcome: Outcome) -> None:
        write_json_atomically(self.path(outcome.student), asdict(outcome))

    def all(self) -> dict:
        return {path.stem: self.load(path.stem) for path in sorted(self.folder.glob("*.json"))}


# --- the worker process -------------------------------------------------------------------

def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the grading process dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt  # nbgrader then shuts the student's kernel down on its way out


def worker_main(connection, nbgrader_argv: list, log_path: str) -> None:
    _die_with_parent()
    os.setpgrp()  # Ctrl-C in the terminal reaches only the orchestrator, which stops the workers itself
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    log_file = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log_file, 1)
    os.dup2(log_file, 2)

    from nbgrader.apps.autogradeapp import AutogradeApp
    from nbgrader.converters import Autograde
    from nbgrader.utils import temp_attrs

    app = AutogradeApp()
    app.initialize(nbgrader_argv)  # the same config files and options as `nbgrader autograde`
    app.coursedir.assignment_id = app.extra_args[0]
    connection.send({"ready": True})
    while True:
        task = connection.recv()
        if task is None:
            return
        started = time.monotonic()
        buffer = _LogBuffer()
        app.log.addHandler(buffer)
        outcome = {"student": task["student"], "status": "graded", "error": ""}
        try:
            with temp_attrs(app.coursedir, student_id=task["student"], db_url=task["db_url"],
                            autograded_directory=task["autograded_directory"]):
                converter = Autograde(coursedir=app.coursedir, parent=app)
                converter.force = True  # the scratch folder is new; regrading is the orchestrator's call
                converter.start()
        except KeyboardInterrupt:
            raise
        except BaseException:
            outcome.update(status="failed", error=buffer.errors() or traceback.format_exc(limit=3))
        finally:
            app.log.removeHandler(buffer)
        outcome["seconds"] = time.monotonic() - started
        connection.send(outcome)


class _LogBuffer(logging.Handler):
    """Keeps nbgrader's error lines for one student: they say why a submission could not be graded."""

    def __init__(self):
        super().__init__(level=logging.ERROR)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())

    def errors(self) -> str:
        return "\n".join(self.lines)[-4000:]


class Worker:
    def __init__(self, context, nbgrader_argv: list, log_path: Path):
        self.connection, child_end = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child_end, nbgrader_argv, str(log_path)),
                                       daemon=True)
        self.process.start()
        child_end.close()
        self.task = None  # the student being graded, with its bookkeeping
        self.started = 0.0
        self.ready = False

    def send(self, task: dict) -> None:
        self.task, self.started = task, time.monotonic()
        self.connection.send({k: v for k, v in task.items() if k in ("student", "db_url", "autograded_directory")})

    def stop(self, grace: float = 5.0) -> None:
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(grace)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


# --- the orchestrator ---------------------------------------------------------------------

@dataclass
class ClassRun:
    assignment: str
    total: int = 0
    skipped: int = 0
    outcomes: list = field(default_factory=list)
    seconds: float = 0.0
    workers: int = 0
    interrupted: bool = False

    def summary(self) -> dict:
        counts = {}
        for outcome in self.outcomes:
            counts[outcome.status] = counts.get(outcome.status, 0) + 1
        return {"assignment": self.assignment, "students": self.total, "already_graded": self.skipped,
                "graded_now": len(self.outcomes), "by_status": counts, "workers": self.workers,
                "seconds": round(self.seconds, 2), "interrupted": self.interrupted,
                "problems": {o.student: o.status for o in self.outcomes if o.status != "graded"}}


class ClassGrader:
    def __init__(self, root: Path, assignment: str, nbgrader_options: list, workers: int,
                 student_timeout: float, force: bool = False, progress: bool = True):
        from nbgrader.apps.autogradeapp import AutogradeApp

        self.root = root.resolve()
        self.assignment = assignment
        self.nbgrader_argv = [assignment, *nbgrader_options]
        self.workers = workers
        self.student_timeout = student_timeout
        self.force = force
        self.progress = progress
        app = AutogradeApp()
        app.log.setLevel(logging.ERROR)
        app.initialize(self.nbgrader_argv)
        self.coursedir = app.coursedir
        self.db_url = app.coursedir.db_url
        self.private_gradebooks = self.db_url.startswith("sqlite")
        self.records = Records(self.root, assignment)

    def folder(self, step: str, student: str) -> Path:
        return Path(self.coursedir.format_path(step, student, self.assignment))

    def submissions(self) -> dict:
        """{student: submission folder} for every submitted/<student>/<assignment>/."""
        pattern = Path(self.coursedir.format_path(self.coursedir.submitted_directory, "*", self.assignment))
        found = {}
        for folder in sorted(pattern.parent.parent.glob(f"*/{pattern.name}")):
            if folder.is_dir():
                found[folder.parent.name] = folder
        return found

    def graded_in_gradebook(self) -> set:
        from autograder.gradebook_merge import TABLES, open_engine
        from sqlalchemy import select

        t = TABLES
        query = (select(t["submitted_assignment"].c.student_id)
                 .join(t["assignment"], t["assignment"].c.id == t["submitted_assignment"].c.assignment_id)
                 .where(t["assignment"].c.name == self.assignment))
        engine = open_engine(self.db_url)
        try:
            with engine.connect() as connection:
                return {row[0] for row in connection.execute(query)}
        finally:
            engine.dispose()

    def pending(self, submissions: dict) -> dict:
        """{student: fingerprint} of the students this run must grade."""
        in_gradebook = self.graded_in_gradebook()
        todo = {}
        for student, folder in submissions.items():
            submitted = fingerprint(folder)
            record = self.records.load(student) or {}
            # A crash is the grading machinery's problem, not the submission's: try again next run.
            done = record.get("fingerprint") == submitted and (
                record.get("status") == "failed"
                or (record.get("status") == "graded" and student in in_gradebook
                    and self.folder(self.coursedir.autograded_directory, student).is_dir()))
            if self.force or not done:
                todo[student] = submitted
        return todo

    def check_assignment(self) -> None:
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.db_url, self.coursedir.course_id) as gradebook:
            try:
                gradebook.find_assignment(self.assignment)
            except MissingEntry:
                raise SystemExit(f"成绩库里没有作业 {self.assignment}：先运行 `make release`"
                                 f"（nbgrader generate_assignment {self.assignment}）。")

    def run(self) -> ClassRun:
        started = time.monotonic()
        submissions = self.submissions()
        result = ClassRun(self.assignment, total=len(submissions), workers=self.workers)
        if not submissions:
            result.seconds = time.monotonic() - started
            return result
        self.check_assignment()
        todo = self.pending(submissions)
        result.skipped = len(submissions) - len(todo)
        scratch_root = self.root / STATE_DIR / "scratch"
        scratch_root.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=scratch_root))
        bar = tqdm(total=len(submissions), initial=result.skipped, unit="人", desc=f"评分 {self.assignment}",
                   file=sys.stderr, disable=not self.progress, dynamic_ncols=True, smoothing=0.1)
        try:
            if todo:
                self._grade(todo, scratch, result, bar)
        except KeyboardInterrupt:
            result.interrupted = True
        finally:
            bar.close()
            shutil.rmtree(scratch, ignore_errors=True)
            _remove_abandoned_scratch(scratch_root)
        result.seconds = time.monotonic() - started
        return result

    def _grade(self, todo: dict, scratch: Path, result: ClassRun, bar) -> None:
        from autograder.gradebook_merge import write_template

        template = scratch / "template.db"
        if self.private_gradebooks:
            write_template(self.db_url, template)
        queue = list(todo)
        context = multiprocessing.get_context("spawn")
        workers = []
        try:
            for number in range(min(self.workers, len(queue))):
                workers.append(Worker(context, self.nbgrader_argv, scratch / f"worker-{number}.log"))
            while queue or any(w.task for w in workers):
                for worker in workers:
                    if worker.ready and worker.task is None and queue:
                        worker.send(self._prepare(queue.pop(0), todo, scratch, template))
                ready = wait([w.connection for w in workers] + [w.process.sentinel for w in workers],
                             timeout=1.0)
                for index, worker in enumerate(workers):
                    if worker.connection in ready or worker.process.sentinel in ready:
                        self._receive(worker, result, bar)
                    if not worker.ready and not worker.process.is_alive():
                        log = (scratch / f"worker-{index}.log").read_text(errors="replace")[-3000:]
                        raise RuntimeError(f"评分进程没能启动（nbgrader 配置有误？）：\n{log}")
                    if not worker.process.is_alive() or self._overdue(worker):
                        if worker.task is not None:
                            self._finish(worker.task, {"status": "crashed", "seconds": time.monotonic() - worker.started,
                                                       "error": self._crash_reason(worker)}, result, bar)
                        worker.stop()
                        workers[index] = Worker(context, self.nbgrader_argv, scratch / f"worker-{index}.log")
        finally:
            for worker in workers:
                if worker.process.is_alive() and worker.task is None:
                    try:
                        worker.connection.send(None)
                    except OSError:
                        pass
            for worker in workers:
                worker.stop()

    def _overdue(self, worker) -> bool:
        return worker.task is not None and time.monotonic() - worker.started > self.student_timeout

    def _crash_reason(self, worker) -> str:
        if worker.process.is_alive():
            return f"评分超过 {self.student_timeout:.0f} 秒仍未结束，已终止"
        return f"评分进程意外退出（退出码 {worker.process.exitcode}）"

    def _receive(self, worker, result: ClassRun, bar) -> None:
        try:
            while worker.connection.poll():
                message = worker.connection.recv()
                if message.get("ready"):
                    worker.ready = True
                elif worker.task is not None:
                    task, worker.task = worker.task, None
                    self._finish(task, message, result, bar)
        except (EOFError, OSError):
            pass  # the worker died: handled by the caller

    def _prepare(self, student: str, todo: dict, scratch: Path, template: Path) -> dict:
        from autograder.gradebook_merge import seed_private, sqlite_url

        folder = scratch / student
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        task = {"student": student, "fingerprint": todo[student], "autograded_directory": str(folder / "autograded")}
        if self.private_gradebooks:
            private = folder / "gradebook.db"
            task["seeded"] = seed_private(self.db_url, template, private, self.assignment, student)
            task["private"] = private
            task["db_url"] = sqlite_url(private)
        else:
            task["db_url"] = self.db_url
        return task

    def _finish(self, task: dict, message: dict, result: ClassRun, bar) -> None:
        """Results into the gradebook and autograded/, then the record that says so."""
        from autograder.gradebook_merge import merge_private

        student = task["student"]
        outcome = Outcome(student, message["status"], round(message.get("seconds", 0.0), 2),
                          message.get("error", ""), task["fingerprint"])
        if outcome.status != "crashed":
            if self.private_gradebooks:
                merge_private(task["private"], self.db_url, task["seeded"], self.assignment, student)
            graded = Path(task["autograded_directory"]) / student / self.assignment
            destination = self.folder(self.coursedir.autograded_directory, student)
            if destination.exists():
                shutil.rmtree(destination)
            if graded.is_dir():  # nbgrader removes it when the student failed, as serial autograde does
                destination.parent.mkdir(parents=True, exist_ok=True)
                os.replace(graded, destination)
            outcome.score, outcome.max_score = self._score(student)
        self.records.save(outcome)
        result.outcomes.append(outcome)
        bar.update(1)
        if outcome.status != "graded":
            bar.write(f"  {student}: {STATUS_TEXT[outcome.status]}", file=sys.stderr)

    def _score(self, student: str):
        from autograder.gradebook_merge import submission_score

        return submission_score(self.db_url, self.assignment, student, self.coursedir.course_id)


STATUS_TEXT = {"graded": "已评分", "failed": "nbgrader 无法评分（提交有问题）", "crashed": "评分进程崩溃或超时"}


def _remove_abandoned_scratch(scratch_root: Path) -> None:
    """Scratch folders of runs that were killed: their process is gone."""
    for folder in scratch_root.glob("run-*"):
        pid = int(folder.name.split("-")[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            pass


def chinese_summary(run: ClassRun, records: Records) -> str:
    everyone = {student: record for student, record in records.all().items() if record}
    graded = [r for r in everyone.values() if r["status"] == "graded" and r.get("score") is not None]
    lines = [f"作业 {run.assignment}：共 {run.total} 份提交，本次评分 {len(run.outcomes)} 份，"
             f"之前已评好 {run.skipped} 份；{run.workers} 个并行进程，用时 {run.seconds:.1f} 秒。"]
    if run.interrupted:
        lines.append("评分被中断：已完成的都已存好，再次运行会从剩下的接着评。")
    if graded:
        scores = [r["score"] for r in graded]
        top = graded[0]["max_score"]
        lines.append(f"已评分 {len(graded)} 人：平均 {sum(scores) / len(scores):.1f} / {top:g}，"
                     f"满分 {sum(1 for s in scores if s == top)} 人。")
    problems = {s: r for s, r in everyone.items() if r["status"] != "graded"}
    if problems:
        lines.append(f"有问题的提交 {len(problems)} 份：" +
                     "，".join(f"{s}（{STATUS_TEXT[r['status']]}）" for s, r in sorted(problems.items())))
    return "\n".join(lines)


def default_workers() -> int:
    return len(os.sched_getaffinity(0))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("assignment", nargs="?", default=ASSIGNMENT)
    parser.add_argument("--workers", type=int, default=default_workers(), help="并行进程数（默认：CPU 核数）")
    parser.add_argument("--force", action="store_true", help="全部重新评分，不管之前评过没有")
    parser.add_argument("--student-timeout", type=float, default=1200.0, help="一个学生最多评多少秒")
    parser.add_argument("--no-progress", action="store_true")
    args, nbgrader_options = parser.parse_known_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)  # `kill` stops as cleanly as Ctrl-C
    grader = ClassGrader(Path.cwd(), args.assignment, nbgrader_options, max(1, args.workers),
                         args.student_timeout, force=args.force, progress=not args.no_progress)
    run = grader.run()
    print(chinese_summary(run, grader.records), file=sys.stderr)
    print(json.dumps(run.summary(), ensure_ascii=False))
    if run.interrupted:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
