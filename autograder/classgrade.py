"""`make grade`: every student of the class, judged in parallel, one gradebook, resumable.

    python -m autograder.classgrade [--lesson lesson04] [--workers N] [--force] [--db-url URL] [--seed N]
                                    [--no-progress] [--allow-unisolated] [course_root]

Each lesson (autograder.lessons) that some student handed in, i.e. has a folder
submitted/<student>/<lesson>/, is graded in turn, the course's first lesson first; `--lesson`
grades one. Within a lesson the students who handed it in are graded (grade.students); the
others have no submission of it, as with stock nbgrader, and 0 in grades.csv.

The judge is a pure function from a notebook to a verdict, and it is nearly all of the
work, so only the judging runs in parallel: this process stages each submission
(autograder.grade), a pool of worker processes judges the staged notebooks
(autograder.judge_pool), and as each verdict comes back this process runs nbgrader's
own steps for that student, autograde (the verdict written into the test cells) and
generate_feedback, straight into the gradebook, autograded/ and feedback/. This
process is the only writer of the gradebook, so SQLite never meets a second writer and
PostgreSQL works the same way. Serial grading is `--workers 1`.

A student whose worker died or got stuck is graded as a blank submission with a note
saying so (WORKER_DIED), as is a student nbgrader could not autograde; the other
students are graded as usual. Once a student is done a record is written
(autograder.records): an interrupted run resumes with the students left, a student who
submits again is regraded alone.

stderr: a progress bar (done/total, rate, time left) and notices; stdout: one line per
student as they finish (score, seconds, the scenario seed), then per lesson the summary in
Chinese; reports/<lesson>.html: each lesson's class report (autograder.report); grades.csv:
every lesson graded so far.
"""
import argparse
import hashlib
import json
import os
import signal
import sys
import time
import unicodedata
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

# jsonschema imports rfc3987_syntax, when it is installed, for its two IRI format checks, and that module
# builds a parser at import: over a second of CPU before anyone is graded, for checks nbformat and nbgrader
# never ask for (they validate without format checkers). None in sys.modules makes the import fail, which
# jsonschema expects; every other check stays.
sys.modules.setdefault("rfc3987_syntax", None)

from nbgrader.api import Gradebook, MissingEntry  # noqa: E402
from tqdm import tqdm  # noqa: E402

from autograder import grade, trouble  # noqa: E402
from autograder.judge import SEED_ENV  # noqa: E402
from autograder.judge_pool import JudgePool  # noqa: E402
from autograder.lessons import LESSONS, Lesson, lesson  # noqa: E402
from autograder.claims import Claims, folder_lock  # noqa: E402
from autograder.records import STATE_DIR, Records, write_json_atomically  # noqa: E402
from autograder.report import load_plotting, manual_grading_status, write_report  # noqa: E402
from autograder.sandbox import ALLOW_FLAG, IsolationUnavailable, allow_unisolated, require_isolation  # noqa: E402


CLAIM_POLL_SECONDS = 2.0  # how often a grader looks again at students another grader holds


@dataclass
class Student:
    """One student being graded in this run."""
    name: str
    fingerprint: str  # of the submitted files, for the record
    notes: list = field(default_factory=list)  # what staging found wrong with the file
    blank_because: list | None = None  # set when the student is graded again as blank
    nbgrader_error: str = ""


@dataclass
class ClassRun:
    students: list = field(default_factory=list)
    skipped: int = 0  # graded before, unchanged since
    graded_now: list = field(default_factory=list)
    leaks: dict = field(default_factory=dict)  # student -> secrets found in their feedback, checked as they finish
    seconds: float = 0.0
    workers: int = 0
    interrupted: bool = False
    elsewhere: list = field(default_factory=list)  # finished by another grader while this one ran


class ClassGrader:
    """One lesson's grading of the class."""

    def __init__(self, root: Path, lesson: Lesson, workers: int, db_url: str | None = None, force: bool = False,
                 progress: bool = True):
        self.lesson = lesson
        self.grader = grade.Grader(root, lesson)
        self.root = self.grader.root
        if db_url:
            self.grader.config.CourseDirectory.db_url = db_url
            self.grader.api.coursedir.db_url = db_url
        self.db_url = self.grader.db_url
        self.workers = max(1, workers)
        self.force = force
        self.progress = progress
        self.records = Records(self.root, lesson.assignment)
        # graders of this folder starting together on a new SQLite gradebook make its tables one at a time
        # (PostgreSQL's, shared between machines, are serialised by an advisory lock in Claims)
        with folder_lock(self.root / STATE_DIR / "prepare.lock"):
            self.claims = Claims(self.db_url, lesson.assignment)

    def in_gradebook(self) -> set:
        with Gradebook(self.db_url) as gradebook:
            try:
                return {s.student_id for s in gradebook.find_assignment(self.lesson.assignment).submissions}
            except MissingEntry:
                return set()

    def _prepare(self) -> None:
        """The gradebook learns the assignment as it is in source/, unless a grader of this folder already
        did so for this source and gradebook: regenerating it would pull the blank notebook from under a
        grader still at work here. Graders on other machines may prepare a shared gradebook at the same
        time: the loser of that race finds the assignment there when it tries again."""
        marker = self.root / STATE_DIR / f"prepared-{self.lesson.assignment}.json"
        source = self.root / "source" / self.lesson.assignment / f"{self.lesson.notebook}.ipynb"
        wanted = {"source": hashlib.sha256(source.read_bytes()).hexdigest(),
                  "gradebook": hashlib.sha256(self.db_url.encode()).hexdigest()}  # a URL may hold a password
        try:
            prepared = json.loads(marker.read_text(encoding="utf-8")) == wanted
        except (OSError, ValueError):
            prepared = False
        if prepared and self.grader.has_assignment() and self.grader.blank_notebook_path.exists():
            return
        try:
            self.grader.prepare()
        except RuntimeError:
            time.sleep(1)
            self.grader.prepare()
        write_json_atomically(marker, wanted)

    def pending(self, students: list) -> dict:
        """{student: fingerprint} of the students this run must grade."""
        graded = self.in_gradebook()
        todo = {}
        for student in students:
            submitted = grade.submitted_contents(self.root, student, self.lesson).fingerprint()
            record = self.records.load(student) or {}
            here = (record.get("fingerprint") == submitted
                    and (self.root / "autograded" / student / self.lesson.assignment).is_dir())
            done = student in graded and (here or self.claims.is_done(student, submitted))
            if self.force or not done:
                todo[student] = submitted
        return todo

    def run(self) -> ClassRun:
        started = time.monotonic()
        result = ClassRun(students=grade.students(self.root, self.lesson), workers=self.workers)
        if result.students:
            with INTERRUPTS.deferred(), folder_lock(self.root / STATE_DIR / "prepare.lock"):
                self._prepare()
            todo = self.pending(result.students)
            result.skipped = len(result.students) - len(todo)
            tqdm.monitor_interval = 0  # no monitor thread: the workers are forked from this process
            bar = tqdm(total=len(result.students), initial=result.skipped, unit="人",
                       desc=f"评分 {self.lesson.assignment}", file=sys.stderr, disable=not self.progress,
                       dynamic_ncols=True, smoothing=0.1)
            try:
                if todo:
                    self._grade(todo, result, bar)
            except KeyboardInterrupt:
                result.interrupted = True
                self.claims.release_all()  # the students it was grading go back at once, not after the lease
            finally:
                bar.close()
        result.seconds = time.monotonic() - started
        return result

    def _grade(self, todo: dict, result: ClassRun, bar) -> None:
        left = dict(todo)  # student -> fingerprint: neither graded here yet nor finished by another grader
        students = {}

        def feed():
            """Claim and stage students until the workers have enough ahead of them."""
            for name in list(left):
                if len(pool) >= 2 * self.workers:
                    return
                if self.claims.is_done(name, left[name], since=self.claims.started if self.force else 0.0):
                    left.pop(name)  # another grader finished them meanwhile
                    result.elsewhere.append(name)
                    bar.update(1)
                elif self.claims.claim(name):
                    student = students[name] = Student(name, left.pop(name))
                    staged, student.notes = self.grader.stage(name)
                    pool.put(name, staged)

        with JudgePool(self.workers, lesson=self.lesson) as pool, self.claims.renewing():
            feed()  # the workers start their sandboxes meanwhile
            load_plotting()  # for the class report, while the workers judge
            while left or len(pool):
                for name, verdict, failure in pool.results():
                    self._judged(students[name], verdict, failure, pool, result, bar)
                    feed()
                if left:  # other graders hold them: wait for their verdicts, or for their leases to run out
                    time.sleep(CLAIM_POLL_SECONDS)
                    feed()

    def _judged(self, student: Student, verdict, failure: str, pool: JudgePool, result: ClassRun, bar) -> None:
        if not self.claims.keep(student.name):  # its lease ran out and another grader took the student over
            tqdm.write(f"  {student.name}：另一个评分程序已接手（本程序的认领过期了），这里的结果不记入", file=sys.stderr)
            result.elsewhere.append(student.name)
            bar.update(1)
            return
        if verdict is None:
            self._judging_failed(student, failure, pool, result, bar)
            return
        with INTERRUPTS.deferred():
            report = self.grader.grade_with(student.name, verdict, student.notes)
        if "nbgrader_error" in report and student.blank_because is None:
            student.nbgrader_error = report["nbgrader_error"]
            log = self.records.write_log(student.name, "nbgrader", student.nbgrader_error)
            note = grade.NBGRADER_FAILED.format(log=log.relative_to(self.root))
            self._again_as_blank(student, student.notes + [note], pool)
            return
        if student.nbgrader_error:
            report["nbgrader_error"] = student.nbgrader_error
        self._done(student, report, result, bar)

    def _again_as_blank(self, student: Student, because: list, pool: JudgePool) -> None:
        student.blank_because = because
        staged, student.notes = self.grader.stage(student.name, because)
        pool.put(student.name, staged, first=True)

    def _judging_failed(self, student: Student, failure: str, pool: JudgePool, result: ClassRun, bar) -> None:
        if student.blank_because is None:
            tqdm.write(f"  {student.name}：评分进程出错，改按空白答卷评分（{failure.strip().splitlines()[-1]}）",
                       file=sys.stderr)
            self._again_as_blank(student, [grade.WORKER_DIED], pool)
            return
        report = {"student": student.name, "ok": False, "notes": [grade.WORKER_DIED], "auto_score": 0,
                  "auto_max": 0, "errors": ["评分进程连空白答卷都没能处理：" + failure[-500:]]}
        self._done(student, report, result, bar)

    def _done(self, student: Student, report: dict, result: ClassRun, bar) -> None:
        """Gradebook, autograded/ and feedback/ are written: now the record that says the student is done."""
        self.records.save(student.name, student.fingerprint, report)
        self.claims.done(student.name, student.fingerprint)
        result.graded_now.append(student.name)
        result.leaks[student.name] = self.grader.feedback_leaks(student.name)
        bar.update(1)
        seed = f"，场景种子 {report['seed']}" if report.get("seed") is not None else ""
        tqdm.write(f"  [{result.skipped + len(result.elsewhere) + len(result.graded_now)}/{len(result.students)}] {student.name}: {report['auto_score']:g} / {report['auto_max']:g}"
                   f"（{report.get('seconds', 0):.1f} 秒{seed}）", file=sys.stdout)

    def finish_class(self, result: ClassRun) -> int:
        """After the last student of the lesson (and grades.csv): the leak check, the summary and the class report."""
        reports = self.records.reports()
        ordered = [reports[s] for s in result.students if s in reports]
        leaks = {s: result.leaks[s] if s in result.leaks else self.grader.feedback_leaks(s) for s in result.students}
        status = summary(self.lesson, ordered, leaks, self.root, result.seconds,
                         manual_grading_status(self.db_url, self.lesson.assignment))
        page = write_report(self.root, self.db_url, reports, self.lesson.assignment)
        elsewhere = f"另一个评分程序同时评好了 {len(result.elsewhere)} 人；" if result.elsewhere else ""
        print(f"本次评分 {len(result.graded_now)} 人，之前已评好、跳过 {len(ordered) - len(result.graded_now)} 人；"
              f"{elsewhere}{result.workers} 个并行评分进程。全班报告：{page.relative_to(self.root)}")
        return status


def summary(lesson: Lesson, reports: list, leaks: dict, course_root: Path, seconds: float, manual: str = "") -> int:
    """One lesson's summary in Chinese; 1 when the grader had trouble or feedback leaks, else 0."""
    print(f"\n{lesson.assignment} 自动评分完成，用时 {seconds:.0f} 秒。")
    print(f"{'学生':<16}{'自动评分':>10}  说明")
    for report in reports:
        notes = report.get("notes", [])
        print(f"{report['student']:<18}{report['auto_score']:>5g} / {report['auto_max']:<4g}"
              f"{notes[0] if notes else ''}{f'（另有 {len(notes) - 1} 条）' if len(notes) > 1 else ''}")
    if reports:
        scores = [r["auto_score"] for r in reports]
        print(f"平均 {sum(scores) / len(scores):.1f} 分，满分 {max(r['auto_max'] for r in reports):g} 的有 "
              f"{sum(r['auto_score'] == r['auto_max'] and r['auto_max'] > 0 for r in reports)} 人。")
    print(f"成绩已导出到 {course_root / 'grades.csv'}；反馈在 feedback/<学生>/{lesson.assignment}/。{manual}")
    found = trouble.rows(reports)
    if found:
        print(f"\n评分时遇到麻烦的学生（次数；详情在各自的反馈里）。{trouble.OUTPUT_NOTE}")
        for row in [["学生", *trouble.KINDS.values()], *([name, *map(str, counts)] for name, counts in found)]:
            print(_padded(row[0], 18) + "".join(_padded(cell, 12, right=True) for cell in row[1:]))
    trouble_count = 0
    for report in reports:
        for error in report.get("errors", []):
            trouble_count += 1
            print(f"评分器出错（{report['student']}）：{str(error)[:300]}", file=sys.stderr)
    for student, found in leaks.items():
        if found:
            trouble_count += 1
            print(f"警告：{student} 的反馈里出现了隐藏测试或参考答案的代码：{found[:3]}", file=sys.stderr)
    return 1 if trouble_count else 0


def _padded(text: str, width: int, right: bool = False) -> str:
    """`text` padded to `width` terminal columns (a Chinese character takes two)."""
    gap = " " * max(0, width - sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text))
    return gap + text if right else text + gap


def default_workers() -> int:
    """One per core and one more: judging keeps a core busy nearly all the time (the judge and its
    sandboxed child rarely wait on each other), and the spare worker fills the short gaps (a worker
    starting its sandbox, this process running nbgrader for a student). Each worker has a sandbox of
    its own, so more workers only cost memory and start-up."""
    return len(os.sched_getaffinity(0)) + 1


class Interrupts:
    """Ctrl-C and SIGTERM stop the run as KeyboardInterrupt, but never inside one of nbgrader's steps:
    nbgrader's API runs its apps under a bare `except:` (nbgrader.utils.capture_log), which would take the
    interrupt for a failure of that student's autograde, grade them as blank and carry on."""

    def __init__(self):
        self.deferring = False
        self.pending = False

    def handle(self, signum, frame):
        if self.deferring:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self):
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
        if self.pending:
            raise KeyboardInterrupt


INTERRUPTS = Interrupts()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="并行自动评分全班的作业，可中断、可续评。")
    parser.add_argument("course_root", nargs="?", default=".")
    parser.add_argument("--lesson", choices=list(LESSONS),
                        help="只评这一课（默认：submitted/ 下有人交了的每一课）")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="并行评分进程数（默认：CPU 核数加一；1 就是逐个评分）")
    parser.add_argument("--db-url", help="成绩库地址（默认取 nbgrader_config.py 里的 db_url），例如 postgresql://…")
    parser.add_argument("--force", action="store_true", help="全部重新评分，不管之前评过没有")
    parser.add_argument("--no-progress", action="store_true", help="不显示进度条")
    parser.add_argument("--seed", type=int, help="抽取评分场景的随机种子，用来重现某次评分"
                                                  "（默认每份提交各抽一个，记在 .classgrade/ 的评分记录里）")
    parser.add_argument(ALLOW_FLAG, action="store_true",
                        help="没有 user namespace 时也评分：学生代码不隔离，以你的身份运行（清楚风险时才用）")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # each student's line as it is graded, into a pipe or a log too
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy 2 warns about nbgrader's own session use
    if args.seed is not None:
        os.environ[SEED_ENV] = str(args.seed)
    if args.allow_unisolated:
        allow_unisolated()  # the workers inherit the environment
    try:
        require_isolation()  # before anyone is graded
    except IsolationUnavailable as refusal:
        print(refusal.code, file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, INTERRUPTS.handle)
    signal.signal(signal.SIGTERM, INTERRUPTS.handle)  # `kill` stops as cleanly as Ctrl-C
    root = Path(args.course_root)
    lessons = [lesson(args.lesson)] if args.lesson else grade.lessons_handed_in(root)
    if not lessons:
        print(f"submitted/ 下没有任何一课（{'、'.join(LESSONS)}）的提交，没有要评分的。")
        return 0
    finished = []
    for each in lessons:  # one lesson after another: each has its own pool, records and claims
        grader = ClassGrader(root, each, args.workers, args.db_url, args.force, not args.no_progress)
        try:
            result = grader.run()
        except KeyboardInterrupt:  # while the gradebook was being prepared: nobody of this lesson graded yet
            result = None
        if result is None or result.interrupted:
            saved = len(grader.records.reports()) if result else 0
            print(f"评分被中断：{each.assignment} 已评好的 {saved} 人（和之前评完的课）都已保存，"
                  "再次运行 make grade 会接着评剩下的。", file=sys.stderr)
            return 130
        finished.append((grader, result))
    grade.export(grader.db_url, grader.root / "grades.csv")  # every lesson's scores, before the summaries name it
    return max(each.finish_class(result) for each, result in finished)


if __name__ == "__main__":
    sys.exit(main())
