"""Judge corpus variants by name and print points + failures. From a repository root:
    [SEED=n] LESSON=lesson03|lesson04 PYTHONPATH=.:tests/grading PATH=$PWD/.venv/bin:$PATH .venv/bin/python judge_one.py VARIANT [VARIANT...]
A variant is a file tests/grading/variants[_lesson04]/VARIANT.py (see tests/grading/grading_corpus.py)."""
import importlib, os, sys, tempfile
from pathlib import Path
if os.environ.get("SEED"):
    os.environ["AUTOGRADER_SEED"] = os.environ["SEED"]
from autograder.lessons import lesson
from grading_corpus import build, failures, scores, grade_all

name = os.environ.get("LESSON", "lesson03")
L = lesson(name)
mod = importlib.import_module("test_grading_corpus_lesson04" if name == "lesson04" else "test_grading_corpus")
folder = Path(tempfile.mkdtemp(prefix="judge1"))
notebooks = {}
for v in sys.argv[1:]:
    (folder / f"{v}.ipynb").write_text(build(v, L), encoding="utf-8")
    notebooks[v] = folder / f"{v}.ipynb"
for v, verdict in sorted(grade_all(notebooks, lesson=L).items()):
    got = scores(verdict)
    lost = {g: f"{p}/{mod.FULL[g]}" for g, p in got.items() if p != mod.FULL[g]}
    print("=" * 70)
    print(v, "seed", verdict["seed"], "total", sum(got.values()), "/", sum(mod.FULL.values()), "lost:", lost or "nothing")
    if v in mod.EXPECTED:
        print("  corpus expects:", mod.EXPECTED[v] or "full marks")
    if verdict["errors"]:
        print("  ERRORS:", verdict["errors"][:3])
    print(failures(verdict)[:3000])
