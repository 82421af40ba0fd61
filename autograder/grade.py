"""nbgrader's own steps for one student, around a verdict the judge has already given.

`make grade` (autograder.classgrade) uses a Grader per lesson (an autograder.lessons.Lesson,
one nbgrader assignment) in its main process, the one writer of the gradebook:

1. `stage(student)` checks the submission and copies it to build/grading/submitted/
   (nbgrader reads it from there; the student's files stay as they were): a renamed
   notebook gets its expected name back, broken JSON is repaired when it can be, a
   missing or unreadable notebook is replaced by the blank student version so the
   student still appears in the gradebook with zero, and every finding becomes a note
   in the student's feedback. The staged notebook is what the judge judges.
2. `grade_with(student, verdict, notes)` runs `nbgrader autograde` (the judge's
   preprocessor writes the verdict into the test cells, see nbgrader_config.py) and
   `nbgrader generate_feedback` for that student through nbgrader's own API, and
   returns what happened as plain data:

    {"student", "ok", "notes" (what was wrong with the file), "auto_score", "auto_max",
     "grades" ({test cell: points}), "errors" (the grader's own, normally []),
     "feedback_ok", "seconds", "seed" (the judge's), "trouble" ({autograder.trouble kind: count}),
     "score" and "max_score" (from the gradebook, written answers included)}

After the class: `export()` writes grades.csv (every lesson graded so far), `feedback_leaks()`
checks what each student receives for hidden-test code or the reference solution.
"""
import json
import os
import shutil
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell

from .leaks import private_lines
from .lessons import DEFAULT, LESSONS, Lesson
from . import intake, nbgrader_caches
from .submission import (NOTES_KEY, course_layout, drop_duplicate_ids, parse_notebook_text,
                         recover_renamed_cells, restore_missing_cells, submission_from_notebook)

STAGING = Path("build") / "grading"  # under the course root
WORKER_DIED = "评分进程在处理这份提交时意外退出了，这份提交按空白答卷记分；请老师检查原始提交。"
NBGRADER_FAILED = "nbgrader 没能处理这份提交（它的报错记在老师那边的 {log}），按空白答卷记分；请老师检查原始提交。"


class Grader:
    """nbgrader (configured from the course's nbgrader_config.py) plus the staging of one lesson's submissions."""

    def __init__(self, course_root: Path, lesson: Lesson = DEFAULT):
        from nbgrader.apps import NbGraderAPI
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config.loader import PyFileConfigLoader

        nbgrader_caches.install()
        self.root = Path(course_root).resolve()
        os.chdir(self.root)  # relative settings (the sqlite gradebook) mean the course folder
        config = PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()
        config.CourseDirectory.root = str(self.root)
        config.CourseDirectory.submitted_directory = str(STAGING / "submitted")
        config.CourseDirectory.release_directory = str(STAGING / "release")
        self.config = config
        self.api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        self.lesson = lesson
        self.layout = course_layout(lesson.source_notebook)
        self.staged = {}  # student -> (the r bits of their submission, how many entries staging skipped)

    @property
    def db_url(self) -> str:
        return self.api.coursedir.db_url

    def prepare(self) -> None:
        """Make sure the gradebook knows the assignment as it is in source/ (release/ is left alone)."""
        result = self.api.generate_assignment(self.lesson.assignment, force=True, create=True)
        if not result["success"]:
            raise RuntimeError(f"nbgrader generate_assignment 失败：\n{result.get('error') or result.get('log')}")

    @property
    def blank_notebook_path(self) -> Path:
        return self.root / STAGING / "release" / self.lesson.assignment / f"{self.lesson.notebook}.ipynb"

    @property
    def blank_notebook(self) -> Path:
        if not self.blank_notebook_path.exists():
            self.prepare()
        return self.blank_notebook_path

    def has_assignment(self) -> bool:
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.db_url) as gradebook:
            try:
                gradebook.find_assignment(self.lesson.assignment)
                return True
            except MissingEntry:
                return False

    # -- one student --

    def stage(self, student: str, blank_because: list | None = None) -> tuple[Path, list]:
        """Copy the student's submission to the staging folder, repaired (or the blank notebook, with
        `blank_because` as its notes); return the staged notebook and the notes.

        The submission is read, never followed (autograder.intake): links, devices, FIFOs and files
        past the size limits are left where they are, each with a note."""
        contents = submitted_contents(self.root, student, self.lesson)
        target = self.root / STAGING / "submitted" / student / self.lesson.assignment
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True, mode=0o700)
        notes = list(blank_because or [])
        notebook = None
        if blank_because is None:
            notebook, notes = self._read_submitted(contents)
        skipped = contents.skipped + intake.copy_files(
            contents, target, leave_out=lambda r: r.endswith(".ipynb") or ".ipynb_checkpoints" in r.split("/"))
        notes += [entry.note() for entry in skipped]
        blank = nbformat.read(str(self.blank_notebook), as_version=4)
        if notebook is None:
            notebook = blank
        drop_duplicate_ids(notebook)
        restore_missing_cells(notebook, blank)
        notebook.metadata[NOTES_KEY] = notes
        staged = target / f"{self.lesson.notebook}.ipynb"
        with os.fdopen(os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600), "w",
                       encoding="utf-8") as handle:  # like every copy of a submission: owner-only
            nbformat.write(notebook, handle)
        self.staged[student] = (contents.read_bits, len(skipped))
        return staged, notes

    def _read_submitted(self, contents: "intake.Contents"):
        expected = f"{self.lesson.notebook}.ipynb"
        if not contents.present:
            if contents.skipped:  # the folder is a link or cannot be opened: its note says so
                return None, [contents.skipped[0].note(), "自动评分的部分都记 0 分。"]
            return None, [f"没有找到提交的文件夹 submitted/<学号>/{self.lesson.assignment}，自动评分的部分都记 0 分。"]
        notes = []
        chosen = expected if expected in contents.files else None
        if chosen is None:
            candidates = sorted((r for r in contents.files if r.endswith(".ipynb") and "/" not in r),
                                key=lambda r: os.lstat(contents.folder / r).st_mtime, reverse=True)
            ours = [r for r in candidates if any(f'"{g}"'.encode() in _bytes_or_empty(contents, r)
                                                 for g, _ in self.layout.definitions)]
            chosen = (ours or candidates or [None])[0]
            if chosen is None:
                reason = ("（同名的条目被跳过了，见下一条）" if any(s.path == expected for s in contents.skipped)
                          else "")
                return None, [f"没有找到提交的笔记本 {expected}{reason}，自动评分的部分都记 0 分。"]
            notes.append(f"笔记本被改名成了 {chosen}，已按 {expected} 评分（以后请不要改文件名）。")
        try:
            text = contents.read(chosen).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return None, notes + [f"笔记本 {chosen} 读不出来（{exc}），自动评分的部分都记 0 分。"]
        parsed, parse_notes = parse_notebook_text(text)
        notes += parse_notes
        if parsed is None:
            return None, notes + ["自动评分的部分都记 0 分；手动批改的回答也无法读出。"]
        try:
            notebook = nbformat.reads(text, as_version=4)
            nbformat.validate(notebook)
        except Exception:  # not valid nbformat (hand-edited, repaired): rebuild it from what could be read
            notebook = _rebuilt(parsed)
        notes += recover_renamed_cells(notebook, nbformat.read(str(self.blank_notebook), as_version=4))
        notes += submission_from_notebook(notebook, self.layout).notes
        return notebook, list(dict.fromkeys(notes))

    def grade_with(self, student: str, verdict: dict, notes: list) -> dict:
        """nbgrader autograde with the judge's verdict written in, then generate_feedback.

        The report's "nbgrader_error" is set when autograde failed: the caller grades a blank then."""
        from nbgrader.api import Gradebook, MissingEntry

        started = time.monotonic()
        # read by the judge's preprocessor in autograde
        self.config.SandboxJudge.verdicts = {self.lesson.notebook: verdict}
        read_bits, skipped = self.staged.get(student, (0, 0))  # what nbgrader writes is readable by no more users
        self.config.Autograde.permissions = intake.nbgrader_permissions(read_bits, writable=False)
        self.config.GenerateFeedback.permissions = intake.nbgrader_permissions(read_bits, writable=True)
        try:
            result = self.api.autograde(self.lesson.assignment, student, force=True, create=True)
        finally:
            self.config.SandboxJudge.verdicts = {}
        feedback = self.api.generate_feedback(self.lesson.assignment, student, force=True)
        grades = verdict["grades"]
        report = {"student": student, "ok": bool(result["success"]), "notes": notes,
                  "auto_score": sum(g["score"] for g in grades.values()),
                  "auto_max": sum(g["points"] for g in grades.values()),
                  "grades": {k: g["score"] for k, g in grades.items()},
                  "errors": verdict["errors"] + ([] if result["success"] else [result.get("error")]),
                  "feedback_ok": bool(feedback["success"]),
                  "seconds": round(verdict["seconds"] + time.monotonic() - started, 2), "seed": verdict["seed"],
                  "trouble": {**verdict.get("trouble", {}), **({"files": skipped} if skipped else {})}}
        if not result["success"]:
            report["nbgrader_error"] = result.get("error") or result.get("log") or ""
        with Gradebook(self.db_url) as gradebook:
            try:
                submission = gradebook.find_submission(self.lesson.assignment, student)
                report["score"], report["max_score"] = submission.score, submission.max_score
            except MissingEntry:
                report["score"], report["max_score"] = None, None
        return report

    # -- the class --

    def feedback_leaks(self, student: str) -> list:
        """Hidden-test or reference-solution lines found in what this student receives."""
        found = []
        for page in (self.root / "feedback" / student / self.lesson.assignment).glob("*.html"):
            found += private_lines().hidden_test_code_in(page.read_text(encoding="utf-8"))
        graded = self.root / "autograded" / student / self.lesson.assignment / f"{self.lesson.notebook}.ipynb"
        if graded.exists():  # the student's own cells may match the reference; the grader's words may not
            notebook = nbformat.read(str(graded), as_version=4)
            for cell in notebook.cells:
                written = cell.source if cell.cell_type == "markdown" and "nbgrader" not in cell.metadata else ""
                written += "".join(o.get("text", "") + json.dumps(o.get("data", {}), ensure_ascii=False)
                                   for o in cell.get("outputs", []))
                found += private_lines().any_in(written)
        return sorted(set(found))


def _bytes_or_empty(contents, relative: str) -> bytes:
    try:
        return contents.read(relative)
    except OSError:
        return b""


def _rebuilt(parsed) -> nbformat.NotebookNode:
    makers = {"code": new_code_cell, "markdown": new_markdown_cell, "raw": new_raw_cell}
    notebook = nbformat.v4.new_notebook(metadata=dict(parsed.metadata))
    for cell in parsed.cells:
        made = makers.get(cell.cell_type, new_code_cell)(source=cell.source, metadata=cell.metadata)
        if cell.get("id"):
            made["id"] = cell["id"]
        notebook.cells.append(made)
    return notebook


def submitted_contents(course_root: Path, student: str, lesson: Lesson) -> "intake.Contents":
    base = Path(course_root) / "submitted"
    return intake.scan(base / student / lesson.assignment, base=base)


def export(db_url: str, to: Path) -> None:
    """grades.csv (nbgrader's own CSV export) for every lesson that has a submission in the gradebook (a lesson
    released but not handed in yet would give every student a row of zeros)."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    with Gradebook(db_url) as gradebook:
        CsvExportPlugin(to=str(to), assignment=graded_lessons(gradebook)).export(gradebook)
    os.chmod(to, 0o600)  # every student's score: the instructor's alone


def graded_lessons(gradebook) -> list:
    """The names of the lessons (in the course's order) with a submission in this nbgrader Gradebook."""
    from nbgrader.api import MissingEntry

    graded = []
    for name in LESSONS:
        try:
            if gradebook.find_assignment(name).num_submissions:
                graded.append(name)
        except MissingEntry:
            pass
    return graded


def lessons_handed_in(course_root: Path) -> list:
    """The lessons (in the course's order) that some student's folder under submitted/ holds."""
    folder = Path(course_root) / "submitted"
    return [lesson for lesson in LESSONS.values()
            if any(not os.path.islink(folder / student) for student in students(course_root, lesson))]


def students(course_root: Path, lesson: Lesson) -> list:
    """Who handed `lesson` in: the folders under submitted/ holding an entry named after it, and the links
    (staging refuses to follow them, with a note). A student who handed in only another lesson is not graded in
    this one, as nbgrader sees it: no submission, so no feedback, and 0 in grades.csv."""
    folder = Path(course_root) / "submitted"
    if not folder.is_dir():
        return []
    return sorted(entry.name for entry in os.scandir(folder) if not entry.name.startswith(".") and (
        entry.is_symlink() or entry.is_dir(follow_symlinks=False)
        and os.path.lexists(os.path.join(entry.path, lesson.assignment))))
