"""Judge corpus variants with K random seeds each; print every verdict whose points differ from EXPECTED (a seed
that moves a variant's points is a flaky expectation). From the repository root:
    PYTHONPATH=.:tests/grading .venv/bin/python tests/grading/seed_sweep.py lesson04 4 [all|partial|full|NAME,NAME...]
(a comma-separated list of variant names sweeps only those: the ones a round of probing added)"""
import importlib, sys, tempfile
from pathlib import Path
from autograder.lessons import lesson
from grading_corpus import build, failures, scores, grade_all

name, k = sys.argv[1], int(sys.argv[2])
which = sys.argv[3] if len(sys.argv) > 3 else "all"  # all, partial (some points lost), full (full marks) or names
named = None if which in ("all", "partial", "full") else set(which.split(","))


def swept(variant: str, expected: dict) -> bool:
    if named is not None:
        return variant in named
    partial = bool(expected) and any(points != 0 for points in expected.values())
    return which == "all" or which == "partial" and partial or which == "full" and not expected


mod = importlib.import_module("test_grading_corpus_lesson04" if name == "lesson04" else "test_grading_corpus")
L = lesson(name)
folder = Path(tempfile.mkdtemp(prefix="sweep"))
notebooks = {}
for variant, exp in mod.EXPECTED.items():
    if not swept(variant, exp):
        continue
    (folder / f"{variant}.ipynb").write_text(build(variant, L), encoding="utf-8")
    for i in range(k):
        notebooks[f"{variant}#{i}"] = folder / f"{variant}.ipynb"
print(len(notebooks), "judgements", flush=True)
verdicts = grade_all(notebooks, lesson=L)
bad = 0
for key, verdict in sorted(verdicts.items()):
    variant = key.split("#")[0]
    expected = {**mod.FULL, **mod.EXPECTED[variant]}
    got = scores(verdict)
    if got != expected or verdict["errors"]:
        bad += 1
        diff = {g: (got.get(g), expected.get(g)) for g in expected if got.get(g) != expected.get(g)}
        print("MISMATCH", key, verdict["seed"], diff, verdict["errors"][:1])
        print(failures(verdict)[:1500])
print("done", bad, "mismatches of", len(verdicts))
