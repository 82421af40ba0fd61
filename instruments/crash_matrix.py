"""Every place a crash can land, tried for real.

One normal run of the agent (in its own process) lists the crash points it
passes: before and after each model call, inside each save (half-written, file
written, before and after the rename), before and after each tool. Then, for
each point, a fresh run is killed there with SIGKILL (`instruments.replay`), started
again with --resume on what the kill left on disk, run to the end and checked.

    matrix = crash_matrix(run_agent, reconcile)   # four variants of the agent, every crash point
    matrix                                        # a table in the notebook: the crash points where one breaks
    plot_matrix(matrix)                           # every crash point as a picture: crash point × variant

While it runs, one line of progress is rewritten in place (carriage return). What the
notebook keeps of `matrix` is a few KB: a summary as its text, and as its HTML the table
of the crash points where some variant breaks (the others are counted, not listed).

The variants: your reconcile, the incident's reconcile, one that deletes the
dangling message, and your reconcile with a save that writes checkpoint.json in
place (no temporary file). The last two are wrong on purpose.
"""
import contextlib
import html
import json
import multiprocessing
import os
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .host import cjk_font
from .replay import (REPLAY_TASKS, TIMEOUT, Agent, ReplayResult, crash, describe_event, is_incident_point, resume,
                     run_agent_process, scratch_space)


def delete_dangling_message(cp):
    """The tempting wrong fix: forget the dangling call by dropping its assistant message."""
    cp["messages"].pop()  # at save point A the dangling call's message is the last one
    cp["pendingToolUse"] = None
    return cp


def save_without_temp_file(state, path):
    """Writes checkpoint.json in place: a crash in the middle leaves half a file behind."""
    Path(path).write_text(json.dumps(state, ensure_ascii=False, indent=2), encoding="utf-8")


@dataclass(frozen=True)
class CrashPoint:
    index: int       # how many crash points the run passed before this one
    event: dict
    turn: int        # model calls made so far
    save_point: str  # "A" or "B" for a point inside a save, else ""
    key: tuple       # where the point sits in the loop, the same for every variant that passes it

    @property
    def label(self) -> str:
        return f"第 {self.turn} 轮 · {describe_event(self.event, self.save_point)}"


def crash_points(events: list) -> list[CrashPoint]:
    """Name each event of a traced run by its turn and, inside a save, by its save point."""
    points, turn, save_point, seen = [], 0, "", Counter()
    for index, event in enumerate(events):
        kind, when = event["kind"], event["when"]
        if kind == "model":
            turn = event["call"]
        if when == "after" and kind != "save":
            save_point = "A" if kind == "model" else "B"  # the save that records this step
        place = (turn, f"save {save_point}" if kind == "save" else kind, when)
        seen[place] += 1
        points.append(CrashPoint(index, event, turn, save_point if kind == "save" else "", place + (seen[place],)))
    return points


def trace(agent: Agent, timeout: float = TIMEOUT) -> list[CrashPoint]:
    """Run the agent once without a crash, in its own process, and list the crash points it passed."""
    with scratch_space("trace-") as (folder, _):
        run = run_agent_process(agent, folder / "checkpoint.json", None, timeout)
    if run.error or run.timed_out or run.exit_code != 0:
        problem = run.error or ("超时" if run.timed_out else f"退出码 {run.exit_code}")
        raise RuntimeError(f"不崩溃的情况下 run_agent 也没有跑完（{problem}），先让它能正常跑完再探索崩溃点。")
    return crash_points(run.events)


def crash_at(point: CrashPoint, *agents: Agent, timeout: float = TIMEOUT) -> list[ReplayResult]:
    """Kill a run at `point` for real, then resume each agent from its own copy of what the kill left.

    One kill serves several agents when they differ only in what they do after a crash (their
    reconcile): up to the crash point they run the same code, so they leave the same files behind.
    """
    results = []
    with scratch_space("crash-") as (crashed_in, mail):
        crashed = crash(agents[0], lambda index, event: index == point.index, folder=crashed_in, mail=mail,
                        timeout=timeout)
        for agent in agents:
            with scratch_space("resume-") as (folder, own_mail):
                shutil.copytree(crashed_in, folder, dirs_exist_ok=True)  # checkpoint files and delivered mail
                results.append(resume(agent, crashed, point.label, folder=folder, mail=own_mail, timeout=timeout))
    return results


VERDICTS = {  # the first broken invariant names the cell; colours for the picture
    "ok": ("不变量全部成立", "#8fd18f"),
    "unknown": ("不重复，但结果未知（is_error）", "#b8860b"),  # lesson 4's matrix only (instruments.ledger_matrix)
    "corrupt": ("检查点读不回", "#7b3294"),
    "duplicate": ("高影响操作执行了两次", "#d7301f"),
    "unpaired": ("tool_use 没有配对", "#fc8d59"),
    "over_limit": ("turns 超过 MAX_TURNS", "#8c510a"),
    "unfinished": ("任务没完成", "#636363"),
    "timeout": ("进程超时，被守护进程杀掉", "#252525"),
    "absent": ("这个变体没有这个崩溃点", "#f0f0f0"),
}
_BROKEN_BY = {"checkpoint_loads": "corrupt", "no_duplicate_effect": "duplicate", "tool_results_paired": "unpaired",
              "turns_within_limit": "over_limit", "task_finished": "unfinished"}


def verdict(result: ReplayResult | None) -> str:
    if result is None:
        return "absent"
    if result.killed.timed_out or (result.resumed and result.resumed.timed_out):
        return "timeout"  # whatever else is broken, the process that never ended is the cause
    return next((_BROKEN_BY[name] for name in _BROKEN_BY if not result.invariants[name]), "ok")


# The verdict colours once per table, not in every cell: the notebook saves what _repr_html_ returns.
TABLE_STYLE = "".join(
    f".crash-matrix td.verdict-{kind}{{background:{color};color:{'black' if kind in ('ok', 'absent') else 'white'}}}"
    for kind, (_, color) in VERDICTS.items())


@dataclass(repr=False)  # the generated repr would spell out every ReplayResult: megabytes in a saved notebook
class CrashMatrix:
    """The invariants after a crash at each point (columns) for each variant (rows)."""
    task_name: str   # a key of REPLAY_TASKS
    variants: dict   # name -> label
    columns: list    # CrashPoint, one per distinct place in the loop, in run order
    results: dict    # (variant name, point key) -> ReplayResult
    seconds: float
    judge: Callable = verdict  # ReplayResult | None -> a key of VERDICTS

    def verdict(self, variant: str, column: CrashPoint) -> str:
        return self.judge(self.results.get((variant, column.key)))

    def summary(self) -> dict:
        """{variant: {verdict: count}} over the crash points the variant has."""
        return {name: dict(Counter(self.verdict(name, c) for c in self.columns if (name, c.key) in self.results))
                for name in self.variants}

    def broken_points(self, variant: str, kind: str) -> list[CrashPoint]:
        return [c for c in self.columns if self.verdict(variant, c) == kind]

    def rows(self) -> list[dict]:
        """One row per crash point: its label and, per variant, verdict, emails delivered and turns."""
        rows = []
        for column in self.columns:
            row = {"crash_point": column.label}
            for name in self.variants:
                result = self.results.get((name, column.key))
                row[name] = result and {"verdict": self.judge(result), "emails": result.emails_delivered,
                                        "turns": (result.final.state or {}).get("turns")}
            rows.append(row)
        return rows

    def summary_lines(self) -> list[str]:
        lines = [f"场景「{REPLAY_TASKS[self.task_name]}」：{len(self.columns)} 个崩溃点 × {len(self.variants)} 个变体，"
                 f"每个点都真的 SIGKILL、续跑、检查，用时 {self.seconds:.1f} 秒。"]
        for name, label in self.variants.items():
            counts = "，".join(f"{VERDICTS[kind][0]} {n}" for kind, n in self.summary()[name].items())
            lines.append(f"- {label}：{counts}")
        return lines

    def to_text(self, only_broken: bool = True) -> str:
        """The table as text; by default only the crash points where some variant breaks."""
        lines = self.summary_lines()
        for row in self.rows():
            cells = [row[name] for name in self.variants]
            if only_broken and all(cell is None or cell["verdict"] == "ok" for cell in cells):
                continue
            lines.append(row["crash_point"] + "：" + "；".join(
                f"{label} {_cell_text(cell)}" for label, cell in zip(self.variants.values(), cells)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return "\n".join(self.summary_lines())

    def _repr_html_(self) -> str:
        """The summary and a table of the crash points where some variant breaks."""
        head = "".join(f"<th>{html.escape(label)}</th>" for label in self.variants.values())
        body, holding = [], 0
        for row in self.rows():
            cells = [row[name] for name in self.variants]
            if all(cell is None or cell["verdict"] == "ok" for cell in cells):
                holding += 1
                continue
            body.append(f"<tr><td>{html.escape(row['crash_point'])}</td>" + "".join(
                f'<td class="verdict-{cell["verdict"] if cell else "absent"}">{_cell_text(cell)}</td>'
                for cell in cells) + "</tr>")
        summary = "<br>".join(html.escape(line) for line in self.summary_lines())
        rest = (f"<p>其余 {holding} 个崩溃点，每个变体的不变量全部成立（不列出）；"
                "<code>plot_matrix(matrix)</code> 把全部崩溃点画成一张图。</p>")
        return (f'<div class="crash-matrix"><style>{TABLE_STYLE}</style><p>{summary}</p>'
                f"<table><thead><tr><th>崩溃点</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
                f"{rest}</div>")


def _cell_text(cell: dict | None) -> str:
    if cell is None:
        return "—"
    mark = "✓" if cell["verdict"] == "ok" else "✗ " + VERDICTS[cell["verdict"]][0]
    turns = "" if cell["turns"] is None else f"，{cell['turns']} 轮"
    return f"{mark}（{cell['emails']} 封{turns}）"


def variants(run_agent, reconcile, *, incident_reconcile=None, save_checkpoint=None, task=REPLAY_TASKS["email"]):
    """The four agents the crash matrix compares, by name: (label, Agent)."""
    incident_reconcile = incident_reconcile or run_agent.__globals__.get("incident_reconcile")
    found = {
        "fixed": ("你的 reconcile", Agent(run_agent, reconcile, save_checkpoint, task)),
        "incident": ("事故版 reconcile（一律重跑）", incident_reconcile and Agent(run_agent, incident_reconcile,
                                                                          save_checkpoint, task)),
        "delete": ("删掉悬空消息", Agent(run_agent, delete_dangling_message, save_checkpoint, task)),
        "no_temp": ("你的 reconcile + 不用临时文件的 save", Agent(run_agent, reconcile, save_without_temp_file, task)),
    }
    return {name: pair for name, pair in found.items() if pair[1]}


_JOBS: list = []  # set before the worker processes fork, so they inherit it instead of unpickling functions


def _run_job(number: int) -> list[ReplayResult]:
    point, agents, timeout = _JOBS[number]
    return crash_at(point, *agents, timeout=timeout)


def _quiet_worker() -> None:
    sys.stdout = sys.stderr = open(os.devnull, "w")  # a notebook's streams do not work after fork


def run_jobs(jobs: list, workers: int, progress=None) -> list[list[ReplayResult]]:
    """crash_at(point, *agents, timeout=timeout) for each (point, agents, timeout), on `workers` processes;
    progress(done, total) after each job, when given."""
    global _JOBS
    _JOBS = jobs
    done = []
    try:
        with contextlib.ExitStack() as stack:
            if workers <= 1:
                results = map(_run_job, range(len(jobs)))
            else:
                pool = stack.enter_context(multiprocessing.get_context("fork").Pool(workers, initializer=_quiet_worker))
                results = pool.imap(_run_job, range(len(jobs)), chunksize=4)
            for result in results:
                done.append(result)
                if progress:
                    progress(len(done), len(jobs))
        return done
    finally:
        _JOBS = []


class Progress:
    """One line on stdout, rewritten in place (a carriage return, as Jupyter and terminals show it), at most
    every `every` seconds; ends with the line break."""

    def __init__(self, started: float, every: float = 0.5):
        self.started, self.every, self.shown = started, every, 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.shown < self.every and done < total:
            return
        self.shown = now
        print(f"\r崩溃矩阵：杀掉再续跑 {done}/{total} 组，已用 {now - self.started:.0f} 秒",
              end="\n" if done == total else "", flush=True)


def merge_columns(point_lists: list[list[CrashPoint]]) -> list[CrashPoint]:
    """All distinct places in the loop, in run order (variants with fewer saves steps have gaps)."""
    columns, seen = [], set()
    for points in point_lists:
        for position, point in enumerate(points):
            if point.key in seen:
                continue
            seen.add(point.key)
            before = {p.key for p in points[:position]}
            insert_at = max((i + 1 for i, c in enumerate(columns) if c.key in before), default=0)
            columns.insert(insert_at, point)
    return columns


def crash_matrix(run_agent: Callable, reconcile: Callable, *, incident_reconcile: Callable | None = None,
                 save_checkpoint: Callable | None = None, task_name: str = "email", workers: int = 2,
                 progress: bool = True) -> CrashMatrix:
    """Crash each variant of the agent at every crash point it passes; see the module docstring."""
    agents = variants(run_agent, reconcile, incident_reconcile=incident_reconcile,
                      save_checkpoint=save_checkpoint, task=REPLAY_TASKS[task_name])
    return matrix_of(agents, task_name=task_name, workers=workers, progress=progress)


def matrix_of(agents: dict, *, task_name: str = "email", workers: int = 2, judge: Callable = verdict,
              progress: bool = True) -> CrashMatrix:
    """The crash matrix of the agents {name: (label, Agent)}: each one crashed at every point it passes."""
    started = time.monotonic()
    if progress:
        print("崩溃矩阵：先不崩溃地跑一遍每个变体，数出崩溃点……", flush=True)
    points = {name: trace(agent) for name, (_, agent) in agents.items()}
    # Each process does at most one normal run's work: ample time, but a hanging variant must not stall the matrix.
    timeout = max(5.0, 10 * (time.monotonic() - started) / len(agents))
    # Variants that pass the same crash points before any crash share the kills (see crash_at).
    groups = {}
    for name, (_, agent) in agents.items():
        same_run = (agent.run_agent, agent.save_checkpoint, json.dumps([p.event for p in points[name]]))
        groups.setdefault(same_run, []).append(name)
    jobs = [(point, names) for names in groups.values() for point in points[names[0]]]
    done = run_jobs([(point, [agents[name][1] for name in names], timeout) for point, names in jobs], workers,
                    Progress(started) if progress else None)
    return CrashMatrix(
        task_name=task_name,
        variants={name: label for name, (label, _) in agents.items()},
        columns=merge_columns(list(points.values())),
        results={(name, point.key): result for (point, names), results in zip(jobs, done)
                 for name, result in zip(names, results)},
        seconds=time.monotonic() - started,
        judge=judge,
    )


# --- the picture ---------------------------------------------------------------------------

def _turn_label(matrix: CrashMatrix, turn: int) -> str:
    tools = [c.event["name"] for c in matrix.columns if c.turn == turn and c.event["kind"] == "tool"]
    return f"第{turn}轮\n{tools[0] if tools else '答复'}"


def plot_matrix(matrix: CrashMatrix):
    """The matrix as a picture: one row per variant, one column per crash point, coloured by verdict."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    font = cjk_font()
    kinds = list(VERDICTS)
    grid = [[kinds.index(matrix.verdict(name, column)) for column in matrix.columns] for name in matrix.variants]
    with plt.rc_context({"font.family": [font, "DejaVu Sans"], "axes.unicode_minus": False}):
        figure, ax = plt.subplots(figsize=(13, 1.9 + 0.55 * len(grid)), layout="constrained")
        ax.imshow(grid, cmap=ListedColormap([color for _, color in VERDICTS.values()]), vmin=0,
                  vmax=len(kinds) - 1, aspect="auto", interpolation="nearest")
        ax.set_yticks(range(len(grid)), labels=list(matrix.variants.values()), fontfamily=font)
        starts = [i for i, c in enumerate(matrix.columns) if i == 0 or c.turn != matrix.columns[i - 1].turn]
        ax.set_xticks([i - 0.5 for i in starts], labels=[_turn_label(matrix, matrix.columns[i].turn) for i in starts],
                      fontsize=8, ha="left", fontfamily=font)
        for i in starts[1:]:
            ax.axvline(i - 0.5, color="white", linewidth=2)
        for i in [i for i, column in enumerate(matrix.columns) if is_incident_point(column.event)]:
            ax.annotate("事故：send_email 已送达，存档点 B 之前", xy=(i, -0.5), xytext=(i - 1, -0.85), ha="right",
                        fontsize=9, fontfamily=font, annotation_clip=False,
                        arrowprops={"arrowstyle": "->", "color": "black"})
        present = [kind for kind in kinds if any(kinds.index(kind) in row for row in grid)]
        figure.legend(handles=[Patch(color=VERDICTS[kind][1], label=VERDICTS[kind][0]) for kind in present],
                      loc="outside lower center", ncol=len(present), frameon=False, prop={"family": font, "size": 9})
        ax.set_title(f"在每个崩溃点真的 SIGKILL 再续跑：「{REPLAY_TASKS[matrix.task_name]}」", fontfamily=font, pad=24, loc="left")
    plt.close(figure)  # returned, not also shown by pyplot
    return figure
