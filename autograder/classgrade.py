"""`make grade` at class scale: every core, one gradebook, a progress bar, resumable.

    python -m autograder.classgrade [--workers N] [--force] [--db-url URL] [--seed N] [--allow-unisolated] [course_root]

It grades each student exactly as `python -m autograder.grade` does — the same
`Grader.grade_submission()` (staging and repair of the submission, nbgrader autograde
with the sandboxed judge, generate_feedback), the same fallback when grading a
student kills the worker, then grades.csv, the leak check and the same summary — but
several students at a time, and it can stop and resume.

Workers. Each worker is a process forked from this one after nbgrader, the course's
nbgrader_config.py and the configured preprocessors (the judge) are loaded, so a
worker starts at once. It grades one student at a time and keeps its judge and
sandbox between students, like the serial grader's worker. Its output goes to a
scratch folder, so a half-graded student never shows up in autograded/ or feedback/.

One gradebook. SQLite takes one writer at a time, so each student is graded into a
private SQLite gradebook seeded with what the main gradebook holds for this student,
and this process — the only writer — copies what autograde changed into the main one
(autograder.gradebook_merge). A database server such as PostgreSQL takes many
writers: the workers write into it directly, as several graders would.

Resuming. Once a student's results are in the gradebook, autograded/ and feedback/, a
record keyed by a hash of the submitted files is written atomically to
.classgrade/lesson03/<student>.json. A run grades only students without a record or
with a stale one (a new submission), so an interrupted run (Ctrl-C, kill, even
SIGKILL) picks up where it stopped, and a student who submits again is regraded alone.

stderr: a progress bar (done/total, rate, time left) and notices; stdout: the summary
in Chinese; reports/lesson03.html: the class report (autograder.report).
"""
import argparse
import atexit
import ctypes
import hashlib
import json
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import temp_attrs
from tqdm import tqdm
from traitlets.utils.importstring import import_item

from autograder import grade
from autograder.gradebook_merge import merge_private, seed_private, sqlite_url, write_template
from autograder.judge import SEED_ENV
from autograder.report import load_plotting, write_report
from autograder.sandbox import ALLOW_FLAG, IsolationUnavailable, allow_unisolated, require_isolation

STATE_DIR = ".classgrade"
PR_SET_PDEATHSIG = 1
MAX_FAILED_STARTS = 3


# --- resume records ---------------------------------------------------------------------

def fingerprint(folder: Path) -> str:
    """sha256 over every file's relative path and bytes: changes when the student submits again."""
    digest = hashlib.sha256()
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def write_json_atomically(path: Path, data) -> None:
    """Write, fsync, rename over the target, fsync the folder: whole or not at all, even after a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1, default=str)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class Records:
    """One record per graded student: {"fingerprint": ..., "report": grade_submission()'s report}."""

    def __init__(self, root: Path, assignment: str = grade.ASSIGNMENT):
        self.folder = root / STATE_DIR / assignment

    def load(self, student: str) -> dict | None:
        try:
            return json.loads((self.folder / f"{student}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save(self, student: str, submitted: str, report: dict) -> None:
        write_json_atomically(self.folder / f"{student}.json", {"fingerprint": submitted, "report": report})

    def reports(self) -> dict:
        """{student: report} of every recorded student."""
        found = {}
        for path in sorted(self.folder.glob("*.json")):
            record = self.load(path.stem)
            if record:
                found[path.stem] = record["report"]
        return found


# --- the worker process -------------------------------------------------------------------

def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when the grading process dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt


def worker_main(connection, grader: grade.Grader, log_path: str) -> None:
    """A forked worker: grades the students it is sent, one at a time."""
    _die_with_parent()
    os.setpgrp()  # Ctrl-C in the terminal reaches only the orchestrator, which stops the workers itself
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    log_file = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log_file, 1)
    os.dup2(log_file, 2)
    try:
        connection.send({"ready": True})
        while (task := connection.recv()) is not None:
            connection.send(grade_in_scratch(grader, task))
    finally:
        # A forked process ends with os._exit, which skips atexit: the judge closes its sandbox there.
        atexit._run_exitfuncs()


def grade_in_scratch(grader: grade.Grader, task: dict) -> dict:
    """grade_submission() for one student, into the task's gradebook and scratch folders."""
    try:
        with temp_attrs(grader.api.coursedir, db_url=task["db_url"],
                        autograded_directory=task["autograded_directory"],
                        feedback_directory=task["feedback_directory"]):
            return {"report": grader.grade_submission(task["student"], task["blank_because"])}
    except KeyboardInterrupt:
        raise
    except Exception:
        return {"error": traceback.format_exc()}


class Worker:
    """A forked worker process and the pipe to it."""

    def __init__(self, grader: grade.Grader, log_path: Path):
        context = multiprocessing.get_context("fork")  # inherits loaded nbgrader, config and judge modules
        self.connection, child_end = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child_end, grader, str(log_path)), daemon=True)
        self.process.start()
        child_end.close()
        self.log_path = log_path
        self.task = None
        self.started = 0.0
        self.ready = False

    def send(self, task: dict) -> bool:
        """Hand the worker a student; False if the worker is already gone (it never saw the student)."""
        try:
            self.connection.send({key: task[key] for key in ("student", "blank_because", "db_url",
                                                             "autograded_directory", "feedback_directory")})
        except OSError:  # BrokenPipeError: the worker died while idle, e.g. killed from outside
            return False
        self.task, self.started = task, time.monotonic()
        return True

    def messages(self) -> list:
        received = []
        try:
            while self.connection.poll():
                received.append(self.connection.recv())
        except (EOFError, OSError):
            pass  # the worker died; the caller sees it in process.is_alive()
        return received


def stop_workers(workers: list, grace: float = 3.0) -> None:
    """Idle workers are asked to finish (they close their sandbox), busy ones are interrupted;
    whatever still runs after `grace` seconds is killed."""
    for worker in workers:
        if not worker.process.is_alive():
            continue
        try:
            if worker.task is None:
                worker.connection.send(None)
            else:
                worker.process.terminate()
        except OSError:
            worker.process.terminate()
    deadline = time.monotonic() + grace
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
    for worker in workers:
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.connection.close()


# --- the orchestrator ---------------------------------------------------------------------

@dataclass
class ClassRun:
    students: list = field(default_factory=list)
    graded_now: list = field(default_factory=list)
    leaks: dict = field(default_factory=dict)  # student -> secrets found in their feedback, checked as they finish
    seconds: float = 0.0
    workers: int = 0
    interrupted: bool = False


class ClassGrader:
    def __init__(self, root: Path, workers: int, db_url: str | None = None, force: bool = False,
                 progress: bool = True, student_timeout: float = grade.WORKER_DEADLINE):
        self.grader = grade.Grader(root)
        self.root = self.grader.root
        if db_url:
            self.grader.config.CourseDirectory.db_url = db_url
            self.grader.api.coursedir.db_url = db_url
        self.coursedir = self.grader.api.coursedir
        self.db_url = self.coursedir.db_url
        self.private_gradebooks = self.db_url.startswith("sqlite")
        self.workers = max(1, workers)
        self.force = force
        self.progress = progress
        self.student_timeout = student_timeout
        self.records = Records(self.root)
        _import_configured_preprocessors(self.grader.config)

    def final_folder(self, step: str, student: str) -> Path:
        return self.root / step / student / grade.ASSIGNMENT

    def in_gradebook(self) -> set:
        with Gradebook(self.db_url) as gradebook:
            try:
                return {s.student_id for s in gradebook.find_assignment(grade.ASSIGNMENT).submissions}
            except MissingEntry:
                return set()

    def pending(self, students: list) -> dict:
        """{student: fingerprint} of the students this run must grade."""
        graded = self.in_gradebook()
        todo = {}
        for student in students:
            submitted = fingerprint(self.root / "submitted" / student / grade.ASSIGNMENT)
            record = self.records.load(student) or {}
            done = (record.get("fingerprint") == submitted and student in graded
                    and self.final_folder("autograded", student).is_dir())
            if self.force or not done:
                todo[student] = submitted
        return todo

    def run(self) -> ClassRun:
        started = time.monotonic()
        result = ClassRun(students=grade.students(self.root), workers=self.workers)
        if result.students:
            self.grader.prepare()  # the gradebook learns the assignment once, before any worker writes
            todo = self.pending(result.students)
            state = self.root / STATE_DIR
            state.mkdir(mode=0o700, exist_ok=True)  # private gradebook copies; an existing folder is left as it is
            scratch = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=state))
            tqdm.monitor_interval = 0  # no monitor thread: workers are forked from this process
            bar = tqdm(total=len(result.students), initial=len(result.students) - len(todo), unit="人",
                       desc=f"评分 {grade.ASSIGNMENT}", file=sys.stderr, disable=not self.progress,
                       dynamic_ncols=True, smoothing=0.1)
            try:
                if todo:
                    self._grade(todo, scratch, result, bar)
            except KeyboardInterrupt:
                result.interrupted = True
            finally:
                bar.close()
                shutil.rmtree(scratch, ignore_errors=True)
                _remove_abandoned_scratch(state)
        result.seconds = time.monotonic() - started
        return result

    def _grade(self, todo: dict, scratch: Path, result: ClassRun, bar) -> None:
        template = scratch / "template.db"
        if self.private_gradebooks:
            write_template(self.db_url, template)
        queue = [(student, None) for student in todo]
        workers = []
        failed_starts = 0  # in a row: a worker that cannot start at all stops the run, one killed early does not
        try:
            for number in range(min(self.workers, len(queue))):
                workers.append(Worker(self.grader, scratch / f"worker-{number}.log"))
            load_plotting()  # while the workers grade their first students, not after the last
            while queue or any(worker.task for worker in workers):
                for worker in workers:
                    if worker.ready and worker.task is None and queue:
                        student, blank_because = queue.pop(0)
                        if not worker.send(self._prepare(student, blank_because, todo[student], scratch, template)):
                            queue.insert(0, (student, blank_because))  # to the next worker, as it was
                wait([w.connection for w in workers] + [w.process.sentinel for w in workers], timeout=1.0)
                for index, worker in enumerate(workers):
                    for message in worker.messages():
                        if message.get("ready"):
                            worker.ready, failed_starts = True, 0
                        elif worker.task is not None:
                            task, worker.task = worker.task, None
                            self._finish(task, message, queue, result, bar)
                    if not worker.process.is_alive() and not worker.ready:
                        failed_starts += 1
                        if failed_starts >= MAX_FAILED_STARTS:
                            log = worker.log_path.read_text(errors="replace")[-3000:]
                            raise RuntimeError(f"评分进程连续 {failed_starts} 次没能启动：\n{log}")
                    overdue = worker.task is not None and time.monotonic() - worker.started > self.student_timeout
                    if not worker.process.is_alive() or overdue:
                        task, worker.task = worker.task, None
                        if task is not None:
                            self._finish(task, {"error": "评分进程退出或超时"}, queue, result, bar)
                        worker.process.kill()
                        stop_workers([worker])
                        workers[index] = Worker(self.grader, scratch / f"worker-{index}.log")
        finally:
            stop_workers(workers)

    def _prepare(self, student: str, blank_because, submitted: str, scratch: Path, template: Path) -> dict:
        folder = scratch / student
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        task = {"student": student, "blank_because": blank_because, "fingerprint": submitted,
                "autograded_directory": str(folder / "autograded"), "feedback_directory": str(folder / "feedback")}
        if self.private_gradebooks:
            private = folder / "gradebook.db"
            task["seeded"] = seed_private(self.db_url, template, private, grade.ASSIGNMENT, student)
            task.update(private=private, db_url=sqlite_url(private))
        else:
            task["db_url"] = self.db_url
        return task

    def _finish(self, task: dict, message: dict, queue: list, result: ClassRun, bar) -> None:
        """Gradebook, autograded/ and feedback/ first, then the record that says the student is done."""
        student = task["student"]
        report = message.get("report")
        if report is None:  # the worker died, hung or failed: as the serial grader does, grade a blank
            if task["blank_because"] is None:
                queue.insert(0, (student, [grade.WORKER_DIED]))
                bar.write(f"  {student}：评分进程出错，改按空白答卷评分", file=sys.stderr)
                return
            report = {"student": student, "ok": False, "notes": [grade.WORKER_DIED], "auto_score": 0,
                      "auto_max": 0, "errors": ["评分进程连空白答卷都没能处理：" + message.get("error", "")[-500:]]}
        else:
            if self.private_gradebooks:
                merge_private(task["private"], self.db_url, task["seeded"], grade.ASSIGNMENT, student)
            for step in ("autograded", "feedback"):
                made = Path(task[f"{step}_directory"]) / student / grade.ASSIGNMENT
                final = self.final_folder(step, student)
                if final.exists():
                    shutil.rmtree(final)
                if made.is_dir():
                    final.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(made, final)
        self.records.save(student, task["fingerprint"], report)
        result.graded_now.append(student)
        result.leaks[student] = self.grader.feedback_leaks(student)  # now, while the workers are busy
        bar.update(1)

    def finish_class(self, result: ClassRun) -> int:
        """What `autograder.grade` does after the last student: grades.csv, leak check, summary."""
        reports = self.records.reports()
        ordered = [reports[s] for s in result.students if s in reports]
        self.grader.export(self.root / "grades.csv")
        leaks = {s: result.leaks[s] if s in result.leaks else self.grader.feedback_leaks(s) for s in result.students}
        status = grade._summary(ordered, leaks, self.root, result.seconds)
        page = write_report(self.root, self.db_url, reports)
        print(f"本次评分 {len(result.graded_now)} 人，之前已评好、跳过 {len(ordered) - len(result.graded_now)} 人；"
              f"{result.workers} 个并行进程。全班报告：{page.relative_to(self.root)}")
        return status


def _import_configured_preprocessors(config) -> None:
    """Load the judge and any other configured preprocessor now, so forked workers have it loaded."""
    for name in ("sanitize_preprocessors", "autograde_preprocessors"):
        for preprocessor in config.Autograde.get(name, []):
            if isinstance(preprocessor, str):
                import_item(preprocessor)


def _remove_abandoned_scratch(state: Path) -> None:
    """Scratch folders of runs that were killed: their process is gone."""
    for folder in state.glob("run-*"):
        try:
            os.kill(int(folder.name.split("-")[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (PermissionError, ValueError):
            pass


def default_workers() -> int:
    """One per core and one more: grading a student keeps a core busy nearly all the time (the judge
    and its sandboxed child rarely wait on each other), and the spare worker fills the short gaps
    (a worker starting its sandbox, the main process merging a student). Each worker has a sandbox of
    its own, so more workers only cost memory and start-up."""
    return len(os.sched_getaffinity(0)) + 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="并行自动评分全班的作业，可中断、可续评。")
    parser.add_argument("course_root", nargs="?", default=".")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="并行进程数（默认：CPU 核数加一）")
    parser.add_argument("--db-url", help="成绩库地址（默认取 nbgrader_config.py 里的 db_url），例如 postgresql://…")
    parser.add_argument("--force", action="store_true", help="全部重新评分，不管之前评过没有")
    parser.add_argument("--no-progress", action="store_true", help="不显示进度条")
    parser.add_argument("--seed", type=int, help="抽取评分场景的随机种子，用来重现某次评分"
                                                  "（默认每份提交各抽一个，记在 .classgrade/ 的评分记录里）")
    parser.add_argument(ALLOW_FLAG, action="store_true",
                        help="没有 user namespace 时也评分：学生代码不隔离，以你的身份运行（清楚风险时才用）")
    args = parser.parse_args(argv)
    if args.seed is not None:
        os.environ[SEED_ENV] = str(args.seed)  # read by the judge in every worker
    if args.allow_unisolated:
        allow_unisolated()
    try:
        require_isolation()  # before anyone is graded
    except IsolationUnavailable as refusal:
        print(refusal.code, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop_on_sigterm)  # `kill` stops as cleanly as Ctrl-C
    grader = ClassGrader(Path(args.course_root), args.workers, args.db_url, args.force, not args.no_progress)
    result = grader.run()
    if result.interrupted:
        print(f"评分被中断：已评好的 {len(grader.records.reports())} 人都已保存，再次运行 make grade 会接着评剩下的。",
              file=sys.stderr)
        return 130
    return grader.finish_class(result)


if __name__ == "__main__":
    sys.exit(main())
