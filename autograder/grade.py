"""Autograde every submission under submitted/<student>/lesson03/, one student at a time.

    python -m autograder.grade [--seed N] [--allow-unisolated] [course_root]

(`make grade` runs autograder.classgrade, which does the same per student, in
parallel and resumably, by calling `Grader.grade_submission` in its workers.)

For each student folder the submission is first checked and copied to
build/grading/submitted/ (nbgrader reads it from there; the student's files stay as
they were): a renamed notebook gets its expected name back, broken JSON is repaired
when it can be, a missing or unreadable notebook is replaced by the blank student
version so the student still appears in the gradebook with zero, and every finding
becomes a note in the student's feedback. Then `nbgrader autograde` (with the judge
in place of the kernel, see nbgrader_config.py) and `nbgrader generate_feedback` run
for that student, through nbgrader's own API.

Students are graded one at a time by a worker process (`--worker`), which keeps
nbgrader, the judge and its sandbox loaded between students. If the worker dies
while grading a student, that student is graded as a blank submission with a note,
a new worker takes over and the run goes on.

At the end: grades.csv (nbgrader's CSV export), a check that no feedback contains
hidden-test code or the reference solution, and a short summary.

`Grader(course_root).grade_submission(student_id)` grades one student in-process and
returns a plain dict; this is the unit a class-scale runner can call in parallel:

    {"student", "ok", "notes" (what was wrong with the file), "auto_score", "auto_max",
     "grades" ({test cell: points}), "errors" (the grader's own, normally []),
     "feedback_ok", "seconds", "score" and "max_score" (from the gradebook, written answers included),
     "seed" (the judge's scenarios were drawn from it: `--seed N` grades with the same ones again)}
"""
import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell

from .leaks import private_lines
from .notebook_code import SOURCE_NOTEBOOK
from .submission import (NOTES_KEY, course_layout, drop_duplicate_ids, parse_notebook_text,
                         restore_missing_cells, submission_from_notebook)

ASSIGNMENT = "lesson03"
NOTEBOOK = SOURCE_NOTEBOOK.stem
STAGING = Path("build") / "grading"  # under the course root
WORKER_DEADLINE = 900  # seconds for one student; the judge's own limits end every child much sooner
WORKER_DIED = "评分进程在处理这份提交时意外退出了，这份提交按空白答卷记分；请老师检查原始提交。"


class Grader:
    """nbgrader (configured from the course's nbgrader_config.py) plus the staging of submissions."""

    def __init__(self, course_root: Path):
        from nbgrader.apps import NbGraderAPI
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config.loader import PyFileConfigLoader

        self.root = Path(course_root).resolve()
        os.chdir(self.root)  # relative settings (the sqlite gradebook) mean the course folder
        config = PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()
        config.CourseDirectory.root = str(self.root)
        config.CourseDirectory.submitted_directory = str(STAGING / "submitted")
        config.CourseDirectory.release_directory = str(STAGING / "release")
        self.config = config
        self.api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        self.layout = course_layout()

    @property
    def db_url(self) -> str:
        return self.api.coursedir.db_url

    def prepare(self) -> None:
        """Make sure the gradebook knows the assignment as it is in source/ (release/ is left alone)."""
        result = self.api.generate_assignment(ASSIGNMENT, force=True, create=True)
        if not result["success"]:
            raise RuntimeError(f"nbgrader generate_assignment 失败：\n{result.get('error') or result.get('log')}")

    @property
    def blank_notebook(self) -> Path:
        path = self.root / STAGING / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        if not path.exists():
            self.prepare()
        return path

    # -- one student --

    def stage(self, student: str, blank_because: list | None = None) -> list:
        """Copy the student's submission to the staging folder, repaired; return the notes."""
        source = self.root / "submitted" / student / ASSIGNMENT
        target = self.root / STAGING / "submitted" / student / ASSIGNMENT
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
        else:
            target.mkdir()
        notes = list(blank_because or [])
        notebook = None
        if blank_because is None:
            notebook, notes = self._read_submitted(source)
        blank = nbformat.read(str(self.blank_notebook), as_version=4)
        if notebook is None:
            notebook = blank
        drop_duplicate_ids(notebook)
        restore_missing_cells(notebook, blank)
        notebook.metadata[NOTES_KEY] = notes
        nbformat.write(notebook, str(target / f"{NOTEBOOK}.ipynb"))
        return notes

    def _read_submitted(self, folder: Path):
        expected = folder / f"{NOTEBOOK}.ipynb"
        if not folder.is_dir():
            return None, [f"没有找到提交的文件夹 submitted/<学号>/{ASSIGNMENT}，自动评分的部分都记 0 分。"]
        notes = []
        chosen = expected if expected.is_file() else None
        if chosen is None:
            candidates = sorted(folder.glob("*.ipynb"), key=lambda p: p.stat().st_mtime, reverse=True)
            ours = [p for p in candidates if any(f'"{g}"' in p.read_text(encoding="utf-8", errors="replace")
                                                 for g, _ in self.layout.definitions)]
            chosen = (ours or candidates or [None])[0]
            if chosen is None:
                return None, [f"没有找到提交的笔记本 {expected.name}，自动评分的部分都记 0 分。"]
            notes.append(f"笔记本被改名成了 {chosen.name}，已按 {expected.name} 评分（以后请不要改文件名）。")
        try:
            text = chosen.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return None, notes + [f"笔记本 {chosen.name} 读不出来（{exc}），自动评分的部分都记 0 分。"]
        parsed, parse_notes = parse_notebook_text(text)
        notes += parse_notes
        if parsed is None:
            return None, notes + ["自动评分的部分都记 0 分；手动批改的回答也无法读出。"]
        try:
            notebook = nbformat.reads(text, as_version=4)
            nbformat.validate(notebook)
        except Exception:  # not valid nbformat (hand-edited, repaired): rebuild it from what could be read
            notebook = _rebuilt(parsed)
        notes += submission_from_notebook(notebook, self.layout).notes
        return notebook, list(dict.fromkeys(notes))

    def grade_submission(self, student: str, blank_because: list | None = None) -> dict:
        """Stage, autograde and write feedback for one student; return what happened as plain data."""
        from nbgrader.api import Gradebook, MissingEntry

        from .nbgrader_judge import last_verdicts

        started = time.monotonic()
        notes = self.stage(student, blank_because)
        last_verdicts.pop((student, NOTEBOOK), None)
        result = self.api.autograde(ASSIGNMENT, student, force=True, create=True)
        if not result["success"] and blank_because is None:
            failure = "nbgrader 没能处理这份提交（详见评分日志），按空白答卷记分；请老师检查原始提交。"
            return self.grade_submission(student, notes + [failure]) | {"nbgrader_error": result.get("error", "")}
        feedback = self.api.generate_feedback(ASSIGNMENT, student, force=True)
        verdict = last_verdicts.pop((student, NOTEBOOK), None)
        report = {"student": student, "ok": bool(result["success"] and verdict), "notes": notes,
                  "auto_score": sum(g["score"] for g in verdict["grades"].values()) if verdict else 0,
                  "auto_max": sum(g["points"] for g in verdict["grades"].values()) if verdict else 0,
                  "grades": {k: g["score"] for k, g in verdict["grades"].items()} if verdict else {},
                  "errors": (verdict or {}).get("errors", []) + ([] if result["success"] else [result.get("error")]),
                  "feedback_ok": bool(feedback["success"]), "seconds": round(time.monotonic() - started, 2),
                  "seed": (verdict or {}).get("seed")}
        with Gradebook(self.db_url) as gradebook:
            try:
                submission = gradebook.find_submission(ASSIGNMENT, student)
                report["score"], report["max_score"] = submission.score, submission.max_score
            except MissingEntry:
                report["score"], report["max_score"] = None, None
        return report

    # -- the class --

    def export(self, to: Path) -> None:
        from nbgrader.api import Gradebook
        from nbgrader.plugins import CsvExportPlugin

        with Gradebook(self.db_url) as gradebook:
            CsvExportPlugin(to=str(to), assignment=[ASSIGNMENT]).export(gradebook)

    def feedback_leaks(self, student: str) -> list:
        """Hidden-test or reference-solution lines found in what this student receives."""
        found = []
        for page in (self.root / "feedback" / student / ASSIGNMENT).glob("*.html"):
            found += private_lines().hidden_test_code_in(page.read_text(encoding="utf-8"))
        graded = self.root / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        if graded.exists():  # the student's own cells may match the reference; the grader's words may not
            notebook = nbformat.read(str(graded), as_version=4)
            for cell in notebook.cells:
                written = cell.source if cell.cell_type == "markdown" and "nbgrader" not in cell.metadata else ""
                written += "".join(o.get("text", "") + json.dumps(o.get("data", {}), ensure_ascii=False)
                                   for o in cell.get("outputs", []))
                found += private_lines().any_in(written)
        return sorted(set(found))


def _rebuilt(parsed) -> nbformat.NotebookNode:
    makers = {"code": new_code_cell, "markdown": new_markdown_cell, "raw": new_raw_cell}
    notebook = nbformat.v4.new_notebook(metadata=dict(parsed.metadata))
    for cell in parsed.cells:
        made = makers.get(cell.cell_type, new_code_cell)(source=cell.source, metadata=cell.metadata)
        if cell.get("id"):
            made["id"] = cell["id"]
        notebook.cells.append(made)
    return notebook


def students(course_root: Path) -> list:
    folder = Path(course_root) / "submitted"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


class _Worker:
    """A `python -m autograder.grade --worker` process, replaced if it dies."""

    def __init__(self, course_root: Path):
        self.root = course_root
        self.process = None

    def grade(self, student: str, blank_because=None) -> dict | None:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, "-m", "autograder.grade", "--worker", str(self.root)],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                            cwd=Path(__file__).resolve().parent.parent, start_new_session=True)
        self.process.stdin.write(json.dumps({"student": student, "blank_because": blank_because}) + "\n")
        self.process.stdin.flush()
        line = _read_line(self.process, WORKER_DEADLINE)
        if line is None:
            self.close()
            return None
        return json.loads(line)

    def close(self):
        if self.process is not None:
            self.process.stdin.close()  # a worker ends when its input does, and cleans up after itself
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def _read_line(process, deadline: float):
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=deadline):
            return None
    return process.stdout.readline() or None


def grade_class(course_root: Path) -> int:
    course_root = Path(course_root).resolve()
    started = time.monotonic()
    everyone = students(course_root)
    print(f"自动评分 {ASSIGNMENT}：submitted/ 下共有 {len(everyone)} 名学生。", flush=True)
    worker = _Worker(course_root)
    reports = []
    try:
        for number, student in enumerate(everyone, 1):
            report = worker.grade(student)
            if report is None:
                report = worker.grade(student, [WORKER_DIED]) or {
                    "student": student, "ok": False, "notes": [WORKER_DIED], "auto_score": 0, "auto_max": 0,
                    "errors": ["评分进程连空白答卷都没能处理"]}
            reports.append(report)
            seed = f"，场景种子 {report['seed']}" if report.get("seed") is not None else ""
            print(f"  [{number}/{len(everyone)}] {student}: {report['auto_score']:g} / {report['auto_max']:g}"
                  f"（{report.get('seconds', 0):.1f} 秒{seed}）", flush=True)
    finally:
        worker.close()
    grader = Grader(course_root)  # export and checks need only the gradebook, not the judge
    grader.export(course_root / "grades.csv")
    leaks = {student: grader.feedback_leaks(student) for student in everyone}
    return _summary(reports, leaks, course_root, time.monotonic() - started)


def _summary(reports: list, leaks: dict, course_root: Path, seconds: float) -> int:
    print(f"\n自动评分完成，用时 {seconds:.0f} 秒。")
    print(f"{'学生':<16}{'自动评分':>10}  说明")
    for report in reports:
        notes = report.get("notes", [])
        print(f"{report['student']:<18}{report['auto_score']:>5g} / {report['auto_max']:<4g}"
              f"{notes[0] if notes else ''}{f'（另有 {len(notes) - 1} 条）' if len(notes) > 1 else ''}")
    if reports:
        scores = [r["auto_score"] for r in reports]
        print(f"平均 {sum(scores) / len(scores):.1f} 分，满分 {max(r['auto_max'] for r in reports):g} 的有 "
              f"{sum(r['auto_score'] == r['auto_max'] and r['auto_max'] > 0 for r in reports)} 人。")
    print(f"成绩已导出到 {course_root / 'grades.csv'}；反馈在 feedback/<学生>/{ASSIGNMENT}/。"
          "书面回答（why_cpA、why_cpB、why_cpC、root_cause_why）请在 formgrader 里手动批改。")
    trouble = 0
    for report in reports:
        for error in report.get("errors", []):
            trouble += 1
            print(f"评分器出错（{report['student']}）：{str(error)[:300]}", file=sys.stderr)
    for student, found in leaks.items():
        if found:
            trouble += 1
            print(f"警告：{student} 的反馈里出现了隐藏测试或参考答案的代码：{found[:3]}", file=sys.stderr)
    return 1 if trouble else 0


def _worker(course_root: str):
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy 2 warns about nbgrader's own session use
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")  # stdout is for replies only: anything else goes to stderr
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    grader = Grader(Path(course_root))
    grader.prepare()
    for line in sys.stdin:
        request = json.loads(line)
        report = grader.grade_submission(request["student"], request.get("blank_because"))
        replies.write(json.dumps(report, ensure_ascii=False, default=str) + "\n")
        replies.flush()


def main(argv=None) -> int:
    import argparse

    from .judge import SEED_ENV
    from .sandbox import ALLOW_FLAG, IsolationUnavailable, allow_unisolated, require_isolation

    parser = argparse.ArgumentParser(description="逐个自动评分 submitted/ 下的作业。")
    parser.add_argument("course_root", nargs="?", default=".")
    parser.add_argument("--seed", type=int, help="抽取评分场景的随机种子（默认每份提交各抽一个，记在评分记录里）")
    parser.add_argument(ALLOW_FLAG, action="store_true",
                        help="没有 user namespace 时也评分：学生代码不隔离，以你的身份运行（清楚风险时才用）")
    args = parser.parse_args(argv)
    if args.seed is not None:
        os.environ[SEED_ENV] = str(args.seed)  # the worker process inherits it
    if args.allow_unisolated:
        allow_unisolated()  # the worker inherits the environment
    try:
        require_isolation()  # before anyone is graded
    except IsolationUnavailable as refusal:
        print(refusal.code, file=sys.stderr)
        return 2
    return grade_class(Path(args.course_root))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(sys.argv[2])
    else:
        sys.exit(main())
