"""Lesson 4's crash matrix: every crash point of the email task, for the ledger's reconcile and two others.

The machinery is lesson 3's (`instruments.crash_matrix`): a normal run lists the crash
points it passes (the ledger's appends among them, see `instruments.replay`), then a
run is killed with SIGKILL at each one, resumed, run to the end and checked. What lesson
4 adds is one more verdict: a run that keeps every invariant but answered the dangling
call with `is_error` ends with an *unknown* outcome, which the ledger is there to remove.

    matrix = ledger_matrix(run_agent, reconcile)   # your ledger version, the incident's, lesson 3's
    matrix                                         # a table in the notebook
    plot_matrix(matrix)                            # instruments.crash_matrix's picture

The variants: your reconcile(cp, ledger); the incident's (no outcome means "do it again",
without the key); lesson 3's reconcile(cp), which never reads the ledger. All three run
your run_agent, so they pass the same crash points and share each kill.
"""
from typing import Callable

from .crash_matrix import CrashMatrix, matrix_of, verdict
from .replay import Agent, ReplayResult
from course.model import content_blocks


def unknown_outcomes(result: ReplayResult) -> int:
    """How many tool calls the resumed run answered with is_error: an outcome nobody could tell."""
    messages = (result.final.state or {}).get("messages") or []
    return sum(1 for message in messages for block in content_blocks(message)
               if block.get("type") == "tool_result" and block.get("is_error") is True)


def ledger_verdict(result: ReplayResult | None) -> str:
    """Lesson 3's verdict, with "unknown" for a run that holds every invariant but left an outcome unknown."""
    found = verdict(result)
    return "unknown" if found == "ok" and unknown_outcomes(result) else found


def ignoring_ledger(reconcile: Callable) -> Callable:
    """Lesson 3's reconcile(cp) in the place of lesson 4's reconcile(cp, ledger)."""
    def lesson3(cp, ledger):
        return reconcile(cp)
    return lesson3


def ledger_variants(run_agent: Callable, reconcile: Callable, *, incident_reconcile: Callable | None = None,
                    lesson3_reconcile: Callable | None = None) -> dict:
    """The agents lesson 4's matrix compares, by name: (label, Agent); a missing one is left out."""
    namespace = run_agent.__globals__
    incident_reconcile = incident_reconcile or namespace.get("incident_reconcile")
    lesson3_reconcile = lesson3_reconcile or namespace.get("lesson3_reconcile")
    found = {
        "ledger": ("台账 + 幂等键（你的 reconcile）", Agent(run_agent, reconcile)),
        "incident": ("事故版：没结果就重发", incident_reconcile and Agent(run_agent, incident_reconcile)),
        "lesson3": ("第 3 课的 reconcile（不读台账）",
                    lesson3_reconcile and Agent(run_agent, ignoring_ledger(lesson3_reconcile))),
    }
    return {name: pair for name, pair in found.items() if pair[1]}


def ledger_matrix(run_agent: Callable, reconcile: Callable, *, incident_reconcile: Callable | None = None,
                  lesson3_reconcile: Callable | None = None, workers: int = 2, progress: bool = True) -> CrashMatrix:
    """Crash each variant at every crash point of the email task; see the module docstring."""
    agents = ledger_variants(run_agent, reconcile, incident_reconcile=incident_reconcile,
                             lesson3_reconcile=lesson3_reconcile)
    return matrix_of(agents, task_name="email", workers=workers, judge=ledger_verdict, progress=progress)
