"""Build the grading corpus: one submitted notebook per file in variants/.

A variant is a small Python file of sections:

    # %% <grade_id>                 the student's code for that answer cell
    # %% extra after <grade_id>     a code cell the student added after that cell
    # %% duplicate <grade_id>       a copy of that cell (same nbgrader metadata) placed before it
    # %% mutate <how> [<grade_id>]  damage the file: trailing_comma, delete, truncate_after, edit_locked

Answer cells a variant does not mention get the reference solution, read from the
source notebook (autograder.notebook_code, its only copy). `${wrong:NAME}` and
`${lower:NAME}` stand for a wrong letter and for the right one written " c ", so the
variants stay right or wrong whatever letters the lesson's questions use.
"""
import json
import re
import uuid
from functools import lru_cache
from pathlib import Path

import nbformat

from autograder.notebook_code import ROOT, SOURCE_NOTEBOOK

VARIANTS = Path(__file__).resolve().parent / "variants"
RELEASE_NOTEBOOK = ROOT / "release" / "lesson03" / "resume-from-checkpoint.ipynb"
SECTION = re.compile(r"^# %% (.+)$", re.MULTILINE)


def variant_names() -> list:
    return sorted(p.stem for p in VARIANTS.glob("*.py"))


def describe(name: str) -> str:
    text = (VARIANTS / f"{name}.py").read_text(encoding="utf-8")
    return text.split('"""')[1].strip() if text.startswith('"""') else name


@lru_cache(maxsize=1)
def reference() -> dict:
    """grade_id -> the reference source of each answer cell, and the reference answers."""
    notebook = nbformat.read(str(SOURCE_NOTEBOOK), as_version=4)
    sources = {c.metadata["nbgrader"]["grade_id"]: c.source for c in notebook.cells
               if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}
    answers = {}
    for source in sources.values():
        for name, letter in re.findall(r'^(\w+_ANSWER) = "(\w)"', source, re.MULTILINE):
            answers[name] = letter
    return {"sources": sources, "answers": answers}


def _placeholders(code: str) -> str:
    answers = reference()["answers"]

    def replace(match):
        kind, name = match.group(1), match.group(2)
        right = answers[name]
        if kind == "lower":
            return f" {right.lower()} "
        return next(letter for letter in "ABCD" if letter != right)

    return re.sub(r"\$\{(wrong|lower):(\w+)\}", replace, code)


def sections(name: str) -> list:
    """[(header, code)] of a variant file, in order."""
    text = (VARIANTS / f"{name}.py").read_text(encoding="utf-8")
    parts = SECTION.split(text)[1:]
    return [(parts[i].strip(), _placeholders(parts[i + 1].strip("\n") + "\n")) for i in range(0, len(parts), 2)]


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _index(notebook, grade_id: str) -> int:
    return next(i for i, cell in enumerate(notebook.cells) if _grade_id(cell) == grade_id)


def build(name: str) -> str:
    """The submitted notebook for variant `name`, as the text of an .ipynb file."""
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    for grade_id, source in reference()["sources"].items():
        notebook.cells[_index(notebook, grade_id)].source = source
    mutations = []
    for header, code in sections(name):
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


def grade_all(notebooks: dict, workers: int = 2) -> dict:
    """name -> verdict for every notebook path, judged by `workers` judge processes side by side."""
    import os
    import subprocess
    import sys
    import threading

    names = sorted(notebooks)
    queues = [names[i::workers] for i in range(workers)]
    verdicts, failures = {}, []

    def work(queue):
        if not queue:
            return
        process = subprocess.Popen([sys.executable, "-m", "autograder.judge", "--worker"], cwd=ROOT,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})
        requests = "".join(json.dumps({"id": name, "path": str(notebooks[name])}) + "\n" for name in queue)
        output, _ = process.communicate(requests)
        for line in output.splitlines():
            reply = json.loads(line)
            verdicts[reply["id"]] = reply["verdict"]
        if process.returncode:
            failures.append(f"a judge worker exited with {process.returncode}")

    threads = [threading.Thread(target=work, args=(queue,)) for queue in queues]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    missing = [name for name in names if name not in verdicts]
    if failures or missing:
        raise RuntimeError(f"{failures} / no verdict for {missing}")
    return verdicts
