"""The checks every lesson's grading corpus runs. A corpus module (test_grading_corpus*.py) imports them and defines
the tables they read from it: LESSON, FULL, EXPECTED, UNTAMPERED, MISTAKE_NAMED and SEED_REPLAYED (the variant whose
verdict is judged again with its recorded seed)."""
import json
import os
import subprocess
import sys
import time

import pytest

from autograder.leaks import private_lines
from autograder.notebook_code import ROOT

from grading_corpus import BACKGROUND, build, describe, failures, grade_corpus, scores, variant_names

PARAMETERS = {"variant": "EXPECTED", "tampered": "UNTAMPERED", "named": "MISTAKE_NAMED"}


def pytest_generate_tests(metafunc):
    for argument, table in PARAMETERS.items():
        if argument in metafunc.fixturenames:
            metafunc.parametrize(argument, sorted(getattr(metafunc.module, table)))


@pytest.fixture(scope="module")
def verdicts(request, tmp_path_factory):
    lesson = request.module.LESSON
    background = BACKGROUND.get(lesson.assignment)
    if background is not None:  # started when the tests were collected
        started, graded = background.started, background.verdicts()
    else:
        started = time.monotonic()
        graded = grade_corpus(lesson, tmp_path_factory.mktemp(f"corpus_{lesson.assignment}"))
    print(f"\n{lesson.assignment} 评分语料：{len(graded)} 份提交，用时 {time.monotonic() - started:.0f} 秒")
    return graded


def test_every_variant_has_an_expectation(request):
    module = request.module
    assert sorted(module.EXPECTED) == variant_names(module.LESSON)
    assert set(module.UNTAMPERED) == {name for name in module.EXPECTED if name.startswith("tamper_")}


def test_expected_points(request, verdicts, variant):
    module = request.module
    verdict = verdicts[variant]
    assert verdict["errors"] == [], verdict["errors"]
    expected = {**module.FULL, **module.EXPECTED[variant]}
    assert scores(verdict) == expected, \
        f"{variant}（{describe(variant, module.LESSON)}；种子 {verdict['seed']}）\n{failures(verdict)}"


def test_tampering_gains_nothing(request, verdicts, tampered):
    untampered = scores(verdicts[request.module.UNTAMPERED[tampered]])
    gained = {g: (s, untampered[g]) for g, s in scores(verdicts[tampered]).items() if s > untampered[g]}
    assert not gained, f"{tampered} 比 {request.module.UNTAMPERED[tampered]} 多得了分：{gained}"


def test_feedback_names_the_mistake(request, verdicts, named):
    text = failures(verdicts[named]) + "\n".join(verdicts[named]["notes"])
    assert request.module.MISTAKE_NAMED[named] in text, text


def test_feedback_never_shows_hidden_tests_or_the_solution(verdicts):
    for name, verdict in verdicts.items():
        words = [c["title"] + c["message"] for g in verdict["grades"].values() for c in g["checks"]]
        leaked = private_lines().any_in("\n".join(words + verdict["notes"]))
        assert not leaked, f"{name}: {leaked}"
        assert "Traceback" not in "\n".join(words) and "assert " not in "\n".join(words), name


def test_code_that_runs_in_the_notebook_is_never_reported_as_failing(verdicts):
    """A correct answer cell may run a demo when it is defined (a run of its own agent against the offline model):
    it runs in the student's notebook, so the feedback must not say the cell raised or hung."""
    for name in (name for name in verdicts if name.startswith("full_")):
        troubled = [note for note in verdicts[name]["notes"] if "抛出了" in note or "卡住" in note]
        assert not troubled, f"{name}: {troubled}"


def test_a_recorded_seed_draws_the_same_run_again(request, verdicts, tmp_path):
    """`--lesson L --seed N` with the seed a verdict records grades against the same generated cases (the
    replayed variant's feedback names what was drawn: paths, wording, ids, counters)."""
    lesson, name = request.module.LESSON, request.module.SEED_REPLAYED
    notebook = tmp_path / f"{name}.ipynb"
    notebook.write_text(build(name, lesson), encoding="utf-8")
    seed = verdicts[name]["seed"]
    judged = subprocess.run([sys.executable, "-m", "autograder.judge", "--lesson", lesson.assignment, "--seed",
                             str(seed), str(notebook)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, check=True)
    again = json.loads(judged.stdout)
    assert again["seed"] == seed
    assert failures(again) == failures(verdicts[name]), \
        f"种子 {seed}：评分语料里的结论（上）和重新评分的结论（下）不同\n{failures(verdicts[name])}\n--\n{failures(again)}"
    assert verdicts["full_reference"]["seed"] != seed  # without --seed, every judgement draws its own
