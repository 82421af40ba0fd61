"""Build the grading corpus: one submitted notebook per file in variants/ (lesson 3) or
variants_<assignment>/ (the other lessons, e.g. variants_lesson04/).

A variant is a small Python file of sections:

    # %% <grade_id>                 the student's code for that answer cell
    # %% extra after <grade_id>     a code cell the student added after that cell
    # %% duplicate <grade_id>       a copy of that cell (same nbgrader metadata) placed before it
    # %% mutate <how> [<grade_id>]  damage the file: trailing_comma, delete, truncate_after, edit_locked

Answer cells a variant does not mention get the reference solution, read from the
source notebook (autograder.notebook_code.full_marks_notebook, its only copy). Every
function takes the Lesson (autograder.lessons) whose corpus it builds; lesson 3 by default. `${wrong:NAME}` and
`${lower:NAME}` stand for a wrong letter and for the right one written " c " (`${wide:NAME}`: full-width, "Ｃ"), so the
variants stay right or wrong whatever letters the lesson's questions use.
"""
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
import uuid
from functools import lru_cache
from pathlib import Path

import nbformat

from autograder.judge_pool import JudgePool
from autograder.lessons import DEFAULT, Lesson
from autograder.notebook_code import full_marks_notebook, reference_solutions

HERE = Path(__file__).resolve().parent
BACKGROUND = {}  # assignment -> CorpusInBackground, for this pytest session (tests/grading/conftest.py)
SECTION = re.compile(r"^# %% (.+)$", re.MULTILINE)


def variants(lesson: Lesson = DEFAULT) -> Path:
    return HERE / ("variants" if lesson == DEFAULT else f"variants_{lesson.assignment}")


def variant_names(lesson: Lesson = DEFAULT) -> list:
    return sorted(p.stem for p in variants(lesson).glob("*.py"))


def describe(name: str, lesson: Lesson = DEFAULT) -> str:
    text = (variants(lesson) / f"{name}.py").read_text(encoding="utf-8")
    return text.split('"""')[1].strip() if text.startswith('"""') else name


@lru_cache(maxsize=None)
def reference_answers(lesson: Lesson = DEFAULT) -> dict:
    """The reference letter of each multiple-choice answer, by its variable name."""
    answers = {}
    for source in reference_solutions(lesson).values():
        for name, letter in re.findall(r'^(\w+_ANSWER) = "(\w)"', source, re.MULTILINE):
            answers[name] = letter
    return answers


def _placeholders(code: str, lesson: Lesson) -> str:
    answers = reference_answers(lesson)

    def replace(match):
        kind, name = match.group(1), match.group(2)
        right = answers[name]
        if kind == "lower":
            return f" {right.lower()} "
        if kind == "wide":  # the full-width letter a Chinese input method types
            return chr(ord(right) - ord("A") + ord("Ａ"))
        return next(letter for letter in "ABCD" if letter != right)

    return re.sub(r"\$\{(wrong|lower|wide):(\w+)\}", replace, code)


def sections(name: str, lesson: Lesson = DEFAULT) -> list:
    """[(header, code)] of a variant file, in order."""
    text = (variants(lesson) / f"{name}.py").read_text(encoding="utf-8")
    parts = SECTION.split(text)[1:]
    return [(parts[i].strip(), _placeholders(parts[i + 1].strip("\n") + "\n", lesson))
            for i in range(0, len(parts), 2)]


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _index(notebook, grade_id: str) -> int:
    return next(i for i, cell in enumerate(notebook.cells) if _grade_id(cell) == grade_id)


def build(name: str, lesson: Lesson = DEFAULT) -> str:
    """The submitted notebook for variant `name` of the lesson, as the text of an .ipynb file."""
    notebook = full_marks_notebook(lesson)
    mutations = []
    for header, code in sections(name, lesson):
        words = header.split()
        if words[0] == "mutate":
            mutations.append(words[1:])
        elif words[0] == "extra":
            cell = nbformat.v4.new_code_cell(code)
            cell["id"] = "student-" + uuid.uuid4().hex[:8]
            notebook.cells.insert(_index(notebook, words[2]) + 1, cell)
        elif words[0] == "duplicate":
            original = notebook.cells[_index(notebook, words[1])]
            copy = nbformat.from_dict(json.loads(json.dumps(original)))
            copy["id"] = "student-" + uuid.uuid4().hex[:8]
            copy.source = code
            notebook.cells.insert(_index(notebook, words[1]), copy)
        else:
            cells = [c for c in notebook.cells if _grade_id(c) == words[0]]
            cells[-1].source = code
    for how, *target in mutations:
        if how == "delete":
            del notebook.cells[_index(notebook, target[0])]
        elif how == "edit_locked":
            notebook.cells[_index(notebook, target[0])].source += "\nMAX_TURNS = 3\nCHECKPOINT_VERSION = 2\n"
    text = nbformat.writes(notebook)
    for how, *target in mutations:
        if how == "trailing_comma":  # a hand edit that JSON does not allow (json5 does)
            text = text.rstrip()[:-1].rstrip() + ",\n}"
        elif how == "truncate_after":  # the file ends right after that cell (a copy cut short)
            data = json.loads(text)
            keep = next(i for i, c in enumerate(data["cells"])
                        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == target[0])
            data["cells"] = data["cells"][:keep + 2]
            text = json.dumps(data, indent=1, ensure_ascii=False)
            text = text[:text.rindex('"source"') + 12]  # stops inside the cell after it
    return text


def grade_all(notebooks: dict, workers: int = 2, lesson: Lesson = DEFAULT) -> dict:
    """name -> verdict for every notebook path of the lesson, judged by the grader's pool of `workers` judges."""
    verdicts, failures = {}, {}
    with JudgePool(workers, lesson=lesson) as pool:
        for name, path in sorted(notebooks.items()):
            pool.put(name, path)
        for name, verdict, failure in pool.results():
            if verdict is None:
                failures[name] = failure
            else:
                verdicts[name] = verdict
    if failures:
        raise RuntimeError(f"no verdict for {failures}")
    return verdicts


def grade_corpus(lesson: Lesson, folder: Path) -> dict:
    """name -> verdict of every variant of the lesson, its notebook built in `folder`."""
    notebooks = {}
    for name in variant_names(lesson):
        notebooks[name] = folder / f"{name}.ipynb"
        notebooks[name].write_text(build(name, lesson), encoding="utf-8")
    return grade_all(notebooks, lesson=lesson)


class CorpusInBackground:
    """A lesson's corpus graded by a process of its own, started once pytest has collected (tests/grading/conftest.py
    puts the tests reading it last): the minutes of grading overlap the other tests, many of which mostly wait."""

    def __init__(self, lesson: Lesson, folder: Path):
        self.folder, self.started = folder, time.monotonic()
        self.log = open(folder / "grading.log", "wb")
        path = os.pathsep.join(filter(None, [str(HERE.parent.parent), str(HERE), os.environ.get("PYTHONPATH")]))
        self.process = subprocess.Popen([sys.executable, __file__, lesson.assignment, str(folder)],
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
                                        env=dict(os.environ, PYTHONPATH=path))

    def verdicts(self) -> dict:
        if self.process.wait() != 0:
            tail = (self.folder / "grading.log").read_text(encoding="utf-8", errors="replace")[-3000:]
            raise RuntimeError(f"grading the corpus failed ({self.process.returncode}):\n{tail}")
        return pickle.loads((self.folder / "verdicts.pickle").read_bytes())

    def stop(self):
        """Ends the grading (and its judges, in its session) if it still runs."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait()
        self.log.close()


def scores(verdict) -> dict:
    """grade_id -> the points a verdict gives."""
    return {grade_id: grade["score"] for grade_id, grade in verdict["grades"].items()}


def failures(verdict) -> str:
    """The failed checks of a verdict, one line each, as its feedback says them."""
    return "\n".join(f"  {grade_id}: ✘ {check['title']} — {check['message']}"
                     for grade_id, grade in verdict["grades"].items()
                     for check in grade["checks"] if not check["passed"])


if __name__ == "__main__":  # python grading_corpus.py ASSIGNMENT FOLDER: FOLDER/verdicts.pickle (CorpusInBackground)
    from autograder.lessons import lesson as lesson_named
    assignment, out = sys.argv[1], Path(sys.argv[2])
    (out / "verdicts.pickle").write_bytes(pickle.dumps(grade_corpus(lesson_named(assignment), out)))
