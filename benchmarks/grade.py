"""`make bench-grade N=20`: `make grade` against stock nbgrader and serial grading, side by side.

    python -m benchmarks.grade [N] [--workers W] [--keep]

Builds N copies of a full-marks submission (the reference solution filled into the
student notebook, autograder.notebook_code.full_marks_notebook), in four identical
course folders, then in the same run times
  - stock nbgrader: `nbgrader autograde lesson03` with nbgrader's own preprocessors
    (its Execute runs each whole notebook, visible checks included, in a Jupyter
    kernel): what a course without this grader would run;
  - `nbgrader autograde lesson03`: nbgrader's own serial loop, with the course's
    nbgrader_config.py, so the same sandboxed judge; autograde only;
  - `python -m autograder.classgrade --workers 1`: the same work as `make grade`
    (staging, judging, autograde, feedback, grades.csv, the class report), one student
    at a time;
  - `make grade`: autograder.classgrade with its default pool of workers;
and prints the wall times, the ratios and whether every student's every score agrees.
The first ratio is against stock nbgrader (the comparison instructors care about), the
second against the serial autograde with the same judge (make grade does more work),
the third against the same work done serially.

The machine may be shared, and a shared host often gives two busy processes much less
than two cores. So before and after the timed runs the bench also measures how many
cores' worth of plain Python work the machine gives right now (`parallel_capacity`):
no grading run can be faster than that many times the serial one. Ratios of runs made
a minute apart say more than any time alone. A measurement, not a test.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.notebook_code import ROOT, full_marks_notebook
from autograder.scores import class_scores

ASSIGNMENT = "lesson03"
NOTEBOOK = "resume-from-checkpoint.ipynb"
# Stock nbgrader: the course's own ids, nbgrader's default preprocessors (Execute in a kernel).
STOCK_CONFIG = """c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "agent-crash-recovery"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"
c.Execute.timeout = 60
"""


def make_course(folder: Path, students: int, notebook: str, config: str | None = None) -> Path:
    """A course folder with N submissions; `config` replaces the course's nbgrader_config.py."""
    folder.mkdir(parents=True)
    shutil.copytree(ROOT / "source", folder / "source")
    if config is None:
        shutil.copy(ROOT / "nbgrader_config.py", folder)
    else:
        (folder / "nbgrader_config.py").write_text(config, encoding="utf-8")
    for number in range(1, students + 1):
        submitted = folder / "submitted" / f"student{number:03d}" / ASSIGNMENT
        submitted.mkdir(parents=True)
        (submitted / NOTEBOOK).write_text(notebook, encoding="utf-8")
    return folder


def environment() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return env


def timed(command: list, cwd: Path, log: Path) -> float:
    started = time.monotonic()
    with open(log, "w") as output:
        subprocess.run(command, cwd=cwd, env=environment(), stdout=output, stderr=subprocess.STDOUT, check=True)
    return time.monotonic() - started


def parallel_capacity(cores: int, rounds: int = 3) -> float:
    """`cores` processes doing the same fixed work at once, against one alone: how many cores' worth
    of CPU-bound work this machine gives right now (`cores` on an idle machine of your own).
    Medians of a few alternating rounds, since one slow round would say more than `cores`."""
    command = [sys.executable, "-c", "total = 0\nfor number in range(10_000_000):\n    total += number"]

    def wall(copies: int) -> float:
        started = time.monotonic()
        for process in [subprocess.Popen(command) for _ in range(copies)]:
            process.wait()
        return time.monotonic() - started

    alone, together = zip(*[(wall(1), wall(cores)) for _ in range(rounds)])
    return cores * statistics.median(alone) / statistics.median(together)


def scores(course: Path) -> dict:
    """{student: {grade cell: (auto score, max score)}}."""
    found = class_scores(f"sqlite:///{course / 'gradebook.db'}", ASSIGNMENT)
    return {student: {cell: (value["auto_score"], value["max_score"]) for cell, value in entry["cells"].items()}
            for student, entry in found.items()}


def all_full_marks(found: dict) -> bool:
    """Every auto-graded cell of every student at its maximum (written answers wait for a human)."""
    return all(auto == top for cells in found.values() for auto, top in cells.values() if auto is not None)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("students", nargs="?", type=int, default=20)
    parser.add_argument("--workers", type=int, help="make grade 的并行进程数（默认：make grade 自己的默认值）")
    parser.add_argument("--keep", action="store_true", help="留下临时课程文件夹，方便查看")
    args = parser.parse_args(argv)
    notebook = nbformat.writes(full_marks_notebook())
    base = Path(tempfile.mkdtemp(prefix="bench-grade-"))
    stock = make_course(base / "stock", args.students, notebook, STOCK_CONFIG)
    serial = make_course(base / "serial", args.students, notebook)
    pipeline = make_course(base / "pipeline", args.students, notebook)
    parallel = make_course(base / "parallel", args.students, notebook)
    cores = len(os.sched_getaffinity(0))
    print(f"基准：{args.students} 份满分提交，{cores} 个 CPU 核；临时文件夹 {base}", flush=True)
    try:
        for course in (stock, serial, pipeline, parallel):  # as after `make release`: the gradebook knows the assignment
            subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--log-level=ERROR"],
                           cwd=course, env=environment(), check=True, capture_output=True)
        load_before, capacity_before = os.getloadavg()[0], parallel_capacity(cores)
        print(f"这台机器此刻的并行能力：{capacity_before:.2f} 核（CPU 密集的同样工作，{cores} 个进程同时跑 vs 1 个）", flush=True)
        print("原版 nbgrader autograde（它自己的 Execute，在 kernel 里跑整本 notebook）…", flush=True)
        stock_seconds = timed([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], stock, base / "stock.log")
        print(f"  {stock_seconds:.1f} 秒", flush=True)
        print("串行 nbgrader autograde（本课程的沙箱评分器）…", flush=True)
        serial_seconds = timed([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], serial,
                               base / "serial.log")
        print(f"  {serial_seconds:.1f} 秒", flush=True)
        print("串行评分（python -m autograder.classgrade --workers 1）…", flush=True)
        pipeline_seconds = timed([sys.executable, "-m", "autograder.classgrade", "--workers", "1", "--no-progress"],
                                 pipeline, base / "pipeline.log")
        print(f"  {pipeline_seconds:.1f} 秒", flush=True)
        print("并行 make grade …", flush=True)
        options = f"{parallel} --no-progress" + (f" --workers {args.workers}" if args.workers else "")
        parallel_seconds = timed(["make", "--no-print-directory", "-C", str(ROOT), "grade", f"GRADE_ARGS={options}"],
                                 parallel, base / "parallel.log")
        print(f"  {parallel_seconds:.1f} 秒", flush=True)
        load_after, capacity_after = os.getloadavg()[0], parallel_capacity(cores)
        serial_scores = scores(serial)
        agree = (len(serial_scores) == args.students
                 and serial_scores == scores(parallel) and serial_scores == scores(pipeline))
        full = all_full_marks(serial_scores)
        stock_scores = scores(stock)
        stock_full = len(stock_scores) == args.students and all_full_marks(stock_scores)
        stock_ratio = stock_seconds / parallel_seconds
        ratio, same_work_ratio = serial_seconds / parallel_seconds, pipeline_seconds / parallel_seconds
        print(f"\n原版 nbgrader：{stock_seconds:.1f} 秒（学生的 kernel 里跑整本 notebook，"
              f"{'每人满分' if stock_full else '并非每人满分！'}）；串行 nbgrader autograde：{serial_seconds:.1f} 秒（只自动评分）；"
              f"串行评分（--workers 1）：{pipeline_seconds:.1f} 秒（评分、反馈、grades.csv、全班报告）；"
              f"并行 make grade：{parallel_seconds:.1f} 秒（评分、反馈、grades.csv、全班报告）。")
        print(f"加速比：对原版 nbgrader {stock_ratio:.2f}×，对串行 nbgrader autograde {ratio:.2f}×，对同样工作量的串行流程 {same_work_ratio:.2f}×"
              f"（{cores} 核）。三边每个学生每一格的分数{'完全一致' if agree else '不一致！'}"
              f"{'，自动评分的题全部满分' if full and agree else ''}。平均负载 {load_before:.1f} → {load_after:.1f}。")
        print(f"机器的并行能力：开始 {capacity_before:.2f} 核，结束 {capacity_after:.2f} 核——加速比不会超过它。")
        print(json.dumps({"students": args.students, "cores": cores,
                          "parallel_capacity": [round(capacity_before, 2), round(capacity_after, 2)],
                          "stock_nbgrader_seconds": round(stock_seconds, 1), "stock_ratio": round(stock_ratio, 2),
                          "stock_full_marks": stock_full,
                          "serial_nbgrader_autograde_seconds": round(serial_seconds, 1),
                          "serial_grade_pipeline_seconds": round(pipeline_seconds, 1),
                          "parallel_make_grade_seconds": round(parallel_seconds, 1), "ratio": round(ratio, 2),
                          "same_work_ratio": round(same_work_ratio, 2), "scores_agree": agree}))
        if not (agree and stock_full):
            sys.exit(1)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
