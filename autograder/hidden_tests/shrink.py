"""The smallest input that still shows a failure, for the feedback.

Hypothesis's own shrinking runs the test once per try, and here each try is a trip through
the sandbox. So the shrinking is done in rounds instead: every checkpoint one step simpler
than the failing one (`simpler`) is run in one batch, in one process; the smallest that
still fails the same way is kept, and the next round starts from it. A few rounds bring a
drawn checkpoint down to the dangling call and what the failure needs, at the cost of one
sandbox process per round, and only for a submission that fails.
"""
import copy

from autograder.contract import json_size
from autograder.sandbox import Scenario

from .helpers import short

ROUNDS = 4
WIDTH = 16  # candidates per round (one process runs them all)
SHORT_TASK = "任务"


def _exchanges(messages: list) -> tuple:
    """(first, exchanges, last): the task's message, the (assistant, user) pairs after it, and the closing
    assistant message (None when the checkpoint ends with a user message)."""
    last = messages[-1] if len(messages) % 2 == 0 and len(messages) > 1 else None
    body = messages[1:-1] if last is not None else messages[1:]
    return messages[0], [body[i:i + 2] for i in range(0, len(body), 2)], last


def _assemble(first, exchanges, last) -> list:
    return [first, *(m for pair in exchanges for m in pair), *([last] if last is not None else [])]


def simpler(cp: dict) -> list:
    """Checkpoints one step simpler than `cp`, with the same pendingToolUse and the same kind of ending."""
    messages = cp.get("messages")
    if not isinstance(messages, list) or not messages:
        return []
    first, exchanges, last = _exchanges(messages)
    keep = 1 if last is None and cp.get("pendingToolUse") is None else 0  # a checkpoint saved at B keeps its result
    out = []
    for index in range(len(exchanges) - keep):
        out.append({**copy.deepcopy(cp), "messages": copy.deepcopy(_assemble(first, exchanges[:index]
                                                                          + exchanges[index + 1:], last))})
    if cp.get("task") != SHORT_TASK or first.get("content") != SHORT_TASK:
        shorter = copy.deepcopy(cp)
        shorter["task"] = shorter["messages"][0]["content"] = SHORT_TASK
        out.append(shorter)
    assistants = sum(isinstance(m, dict) and m.get("role") == "assistant" for m in messages)
    if cp.get("turns") != assistants or cp.get("tokensUsed") != 0:
        out.append({**copy.deepcopy(cp), "turns": assistants, "tokensUsed": 0})
    if last is not None and isinstance(last.get("content"), list) and len(last["content"]) > 1:
        plain = copy.deepcopy(cp)
        plain["messages"][-1]["content"] = [b for b in last["content"] if b.get("type") != "text"] or \
            last["content"][-1:]
        out.append(plain)
    return [c for c in out if json_size(c) < json_size(cp)]


def smallest_failing(grading, label: str, function: str, case: dict, fails, outputs=None) -> dict:
    """The smallest checkpoint reached from `case` on which `function` still fails: `fails(outcome, index,
    candidate)` says whether the student's call number `index` of a batch failed the same way. `outputs`: the
    shapes of the failing call's tool outputs (a step's "outputs"), given to every candidate too."""
    current = case
    for number in range(ROUNDS):
        candidates = sorted(simpler(current), key=json_size)[:WIDTH]
        if not candidates:
            break
        steps = [{"kind": "call", "name": function, "args": [c], "kwargs": {}, "report_args": True,
                  "batch": "shrink", **({"outputs": outputs} if outputs else {})} for c in candidates]
        outcome = grading.outcome(f"shrink_{label}_{number}", Scenario(f"shrink_{label}_{number}", steps,
                                                                        independent_steps=True))
        failing = [c for index, c in enumerate(candidates) if fails(outcome, index, c)]
        if not failing:
            break
        current = min(failing, key=json_size)
    return current


def counterexample(cp: dict, seed: int) -> str:
    """A checkpoint as the feedback shows it (the data, never the test's code), with the seed of the run:
    `--seed` draws the same cases again."""
    return (f"。反例（评分器生成的输入里出错的一份，已化简到最小）：{short(cp, 600)}（评分种子 {seed}）")
