"""Grade one submission: run the hidden pytest tests against it, in this (trusted) process.

    with Judge(lesson=lesson("lesson04")) as judge:   # lesson 3 when no lesson is named
        verdict = judge.judge_file(Path("submitted/alice/lesson04/effects-and-idempotency.ipynb"))

The lesson's hidden tests (`Lesson.hidden_tests`, e.g. autograder/hidden_tests/) ask for
scenarios; the sandbox runs the student's code for each one in a child process and
reports back data and effects; the tests judge them here. Each test is one check of one nbgrader test cell, marked
`@pytest.mark.grade(grade_id, points)`; its docstring is the check's title and its
failure message (always written for the student, never a traceback) is the feedback.

A verdict is plain JSON:

    {"grades": {"test_reconcile": {"points": 5, "score": 4,
                                   "checks": [{"title", "points", "passed", "message"}, ...]}, ...},
     "notes": ["..."],      # about the file and about cells that could not be defined
     "errors": ["..."],     # the grader's own failures (never the student's fault); empty when all is well
     "seed": 1234567}       # what the scenarios were drawn from: Judge(seed=1234567) draws the same ones

`python -m autograder.judge [--lesson lesson04] [--seed N] NOTEBOOK...` prints the verdicts; many notebooks
are judged in parallel by autograder.judge_pool.
"""
import importlib
import json
import os
import random
import re
import time
from pathlib import Path

import pytest
from course.tools import SMTP_PORT_ENV

from .folder import notebook_folder_files
from .lessons import DEFAULT, LESSONS, Lesson, lesson
from .leaks import private_lines
from .protocol import CellStatus, Left
from .sandbox import LINGER, MAX_EVENTS_PER_STEP, Limits, Outcome, SubmissionTrouble, Sandbox
from .submission import Submission, cell_as_seen, course_layout, read_submission, sandbox_cells, writer_below

SEED_ENV = "AUTOGRADER_SEED"  # how `--seed N` of the graders reaches the judge in their worker processes
INTERNAL_ERROR = "评分器在检查这一项时自己出了错，这一项暂按未通过计，已报告给老师。"
REDACTED = "（这条反馈引用了你的代码输出的内容，其中出现了评分器内部的代码，已隐藏。）"
TRACE_CUT = (f"有的评分步骤里，你的代码做了超过 {MAX_EVENTS_PER_STEP} 次文件操作（比如在几个文件之间来回写入，或者反复打开、关闭文件）。"
             f"评分器每一步只记录前 {MAX_EVENTS_PER_STEP} 次：之后的写入、改名和 fsync 都没有算进断电检查，"
             "这些检查可能因此不通过。把要写的内容攒起来一次写完，就不会这样。")
LEFT_WORDS = {Left.THREADS: "线程", Left.PROCESSES: "进程",
              Left.SCHEDULED: "定时回调（事件循环上的 call_later、任务、add_reader 登记的读写回调，signal.alarm 的闹钟，"
                              "或 timer_create 的定时器）"}
ARMED_WORDS = {Left.AUDIT_HOOK: "审计钩子（sys.addaudithook）", Left.GC_CALLBACK: "垃圾回收回调（gc.callbacks）",
               Left.TRACER: "性能分析或跟踪函数（sys.setprofile、sys.settrace，或 threading 的同名函数）",
               Left.REVIVING_GARBAGE: "一回收就又造出一个同类对象的垃圾（它的 __del__ 再创建一个自己）",
               Left.CPU_TIMER: "按 CPU 时间计时的定时器（setitimer 的 ITIMER_PROF、ITIMER_VIRTUAL，kernel 用掉这些 CPU 时间时发信号）",
               Left.INTERPRETER_HOOK: ("解释器以后自己会调用的函数（sys.meta_path 的导入查找器、sys.path_hooks、sys.excepthook "
                                       "这类钩子、换掉的 sys.stdout 或 __import__、事件循环的 task factory 或异常处理函数，"
                                       "kernel 自己的子进程结束（SIGCHLD）或管道、套接字（SIGPIPE、SIGIO、SIGURG）时调用的信号处理函数，"
                                       "或者换掉的模块里的函数（比如 os.replace、warnings.showwarning、json.dump、course 的函数）、"
                                       "库的类或对象上换掉的方法或类（比如 json.JSONEncoder.iterencode、sys.stdout.flush、"
                                       "事件循环的方法、对象的 __class__）、就地换掉了代码（__code__）的库函数）"),
               Left.SHELL_HOOK: ("IPython 以后自己会调用的函数（set_custom_exc 的异常处理函数、输入或 AST 变换器、显示格式化函数、"
                                 "events 的回调）")}
LEFT_RUNNING_FEEDBACK = ("{function} 返回之后，你的代码留下的{what} {seconds:g} 秒后还在运行：评分器看不到它之后会做什么（比如再发一封信），"
                         "用到这一场景的检查都不得分。对账、恢复、保存要在函数返回之前做完，不要留给线程、子进程或定时回调之后再做。")
LEFT_ARMED_FEEDBACK = ("{function} 返回之后，你的代码在解释器里留下了{what}：在 notebook 里，之后运行别的单元格时它还会被触发、接着做事"
                       "（比如再发一封信），评分器看不到这些，用到这一场景的检查都不得分。对账、恢复、保存要在函数返回之前做完，"
                       "不要留给钩子、回调或垃圾对象的 __del__ 以后再做。")
MAIL_ELSEWHERE_FEEDBACK = ("{function} 运行时，你的代码把邮件设置（环境变量 {variable}）指向了另一台邮件服务器（比如自己启动了一个 "
                           "MailServer）：send_email 发的信、按幂等键查的问题都去了那里，而不是运行开始时环境给的那台。"
                           "在 notebook 里也是这样：信发到一台没人看的新服务器，续跑时问的服务器从没见过这把键。"
                           "邮件服务器由调用方启动（notebook 的演示、守护进程、评分器），你的函数只用环境给的那台。这一项检查看到的是：")
STARTUP_FILE_FEEDBACK = ("{function} 运行时，你的代码要写 Python 启动时会自动运行的文件（{path}）：在你自己的环境里，之后启动的"
                         "每个 Python（下一个 kernel、重演事故时拉起的进程）都会先运行它（比如再发一封信），评分器看不到这些，"
                         "用到这一场景的检查都不得分。对账、恢复要在函数返回之前做完，不要写 .pth、sitecustomize.py 这类文件。")
MAILDIR_FEEDBACK = ("{function} 运行时，你的代码要直接改邮件服务器的 Maildir（在里面写、建或删文件）：在 notebook 里这等于绕过 SMTP "
                    "凭空多出（或少掉）一封「已投递」的信，list_sent_emails 和检查程序都会数错，评分器看不到这些，用到这一场景的"
                    "检查都不得分。发信只经过 send_email，邮件服务器的文件只读不写。")
TOOL_AT_END_FEEDBACK = ("{function} 返回之后，你的代码留到 kernel 关闭时才运行的函数（atexit 或 threading 登记的退出函数、logging "
                       "关闭 handler 时调用的方法、weakref.finalize、对象的 __del__……）调用了工具：在 notebook 里它在 kernel 关闭时"
                       "才运行（比如再发一封信），和哪一次调用都对不上，用到这一场景的检查都不得分。对账、恢复要在函数返回之前做完。")


class GradingRun:
    """One submission being graded: runs each scenario once, on demand."""

    def __init__(self, sandbox: Sandbox, submission: Submission, layout, seed: int, lesson: Lesson = DEFAULT):
        scenarios = scenarios_module(lesson)

        self.sandbox = sandbox
        self.reference = sandbox.reference  # the oracle: the lesson's own solution, in this process
        self.cells = sandbox.compiled(sandbox_cells(submission, layout))
        self.notebook_only = layout.notebook_only  # a demo's names: a cell's NameError on one is the grader's doing
        self.written = submission.written
        self.history = submission.history
        self.decor = notebook_folder_files(lesson.source_notebook.parent, lesson.notebook, submission.notebook,
                                           time.time(), random.Random(seed))
        self.trouble = SubmissionTrouble()
        self.max_turns = sandbox.reference.MAX_TURNS
        self.seed = seed
        self.scenarios = scenarios.build(self.max_turns, random.Random(seed))
        self.outcomes = {}
        self.used = []  # the outcomes the current check has asked for

    def outcome(self, name: str, scenario=None):
        """The outcome of a drawn scenario, or of `scenario`, built by a test from what an earlier one showed. The
        check asking for it fails if the student's code left something running that the grader stopped watching."""
        if name not in self.outcomes:
            self.outcomes[name] = self.sandbox.run(scenario or self.scenarios[name], self.cells, self.trouble,
                                                   self.history, self.decor)
        outcome = self.outcomes[name]
        if outcome.left_running:
            pytest.fail(left_running_feedback(outcome), pytrace=False)
        self.used.append(outcome)
        return outcome

    def answer(self, name: str) -> str:
        """The reference answer to a multiple-choice question, normalised."""
        return str(getattr(self.sandbox.reference, name)).strip().upper()

    def cell_notes(self) -> list:
        reports = {}
        for outcome in self.outcomes.values():
            reports.update(outcome.cells)
        notes = []
        for name, report in reports.items():
            if report["status"] == CellStatus.RAISED and report["error"]["type"] == "NotImplementedError":
                notes.append(f"答题单元格 {name} 还没有作答（仍然是 raise NotImplementedError）")
            elif report["status"] == CellStatus.RAISED and (missing := self._demo_name(report["error"])):
                # the notebook ran it (the name's note says why the grader has no such name): no error of the cell's
                notes.append(f"{cell_as_seen(name)} 评分时运行到用 {missing} 的那条语句就停下了：评分时不运行演示单元格，"
                             f"没有 {missing}（在你的 notebook 里这条语句照常运行）。它后面的定义评分时没有生效；把用到 "
                             f"{missing} 的演示语句放到单元格的最后就不会这样")
            elif report["status"] == CellStatus.RAISED:
                error = report["error"]
                writer = writer_below(name, error, self.cells, self.written)
                why = writer and (f"。{self.written[writer]} 要到它下面的「{cell_as_seen(writer)}」（%%writefile）才写出来："
                                  "从上到下运行时，import 的时候这个文件还不存在；把 %%writefile 单元格移到 import 它的"
                                  "单元格前面")
                notes.append(f"{cell_as_seen(name)} 运行时抛出了 {error['type']}：{error['message'][:120]}"
                             f"（它后面的定义没有生效）{why or ''}")
            elif report["status"] in (CellStatus.TIMEOUT, CellStatus.DIED):
                # a cell is left out from the scenario where it first hung on: the checks of earlier ones stand
                notes.append(f"{cell_as_seen(name)} 一运行就卡住或让进程退出（{report['error']['message']}），"
                             "从那以后的评分场景都跳过了它（之前已经跑完的场景里它照常生效，那些检查照常计分）")
        return notes

    def _demo_name(self, error: dict) -> str | None:
        """The name a cell's NameError is about, if a demo cell gives it its value in the notebook (DEMO_DIR)."""
        found = re.fullmatch(r"name '(\w+)' is not defined", str(error.get("message")))
        if error.get("type") == "NameError" and found and found.group(1) in self.notebook_only:
            return found.group(1)
        return None


class _Collector:
    """The pytest plugin: hands the grading run to the tests and records each check's result."""

    def __init__(self, run: GradingRun):
        self.grading_run = run  # the hidden tests' `grading` fixture looks for this attribute
        self.checks = []
        self.errors = []

    def pytest_runtest_setup(self, item):
        self.grading_run.used = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self._record(item, report, call)

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(f"收集隐藏测试失败：{report.nodeid}\n{report.longreprtext[-2000:]}")

    def _record(self, item, report, call):
        marker = item.get_closest_marker("grade")
        if marker is None:
            self.errors.append(f"隐藏测试 {item.nodeid} 没有 grade 标记")
            return
        grade_id, points = marker.args
        title = (item.function.__doc__ or item.name).strip().splitlines()[0]
        message = ""
        if report.outcome != "passed":
            failure = call.excinfo.value if call.excinfo else None
            if isinstance(failure, pytest.fail.Exception):
                message = mail_elsewhere_feedback(self.grading_run.used) + failure.msg
            else:
                message = INTERNAL_ERROR
                self.errors.append(f"{item.nodeid}: {report.longreprtext[-3000:]}")
        self.checks.append({"grade_id": grade_id, "title": title, "points": points,
                            "passed": report.outcome == "passed", "message": message})


def mail_elsewhere_feedback(outcomes: list) -> str:
    """Why a check on these outcomes may have failed: mail went to a server the student's code named (see
    Outcome.mail_elsewhere); the check's own message follows. Empty if none did."""
    for outcome in outcomes:
        if outcome.mail_elsewhere:
            function = outcome.scenario.steps[outcome.mail_elsewhere[0]]["name"]
            return MAIL_ELSEWHERE_FEEDBACK.format(function=function, variable=SMTP_PORT_ENV)
    return ""


def left_running_feedback(outcome: Outcome) -> str:
    """Why no check may use `outcome`: what the first process the watch ran out on left running or armed, named by its
    step's function."""
    first = outcome.left_running[0]
    function = outcome.scenario.steps[first["step"]]["name"]
    running = [LEFT_WORDS[kind] for kind in first["left"] if kind in LEFT_WORDS]
    armed = [ARMED_WORDS[kind] for kind in first["left"] if kind in ARMED_WORDS]
    parts = []
    if Left.TOOL_AT_END in first["left"]:
        parts.append(TOOL_AT_END_FEEDBACK.format(function=function))
    if Left.STARTUP_FILE in first["left"]:
        parts.append(STARTUP_FILE_FEEDBACK.format(function=function, path=os.path.basename(first["files"][0])))
    if Left.MAILDIR in first["left"]:
        parts.append(MAILDIR_FEEDBACK.format(function=function))
    if running:
        parts.append(LEFT_RUNNING_FEEDBACK.format(function=function, seconds=LINGER, what="和".join(running)))
    if armed:
        parts.append(LEFT_ARMED_FEEDBACK.format(function=function, what="、".join(armed)))
    return "".join(parts)


def _redacted(text: str) -> str:
    """Feedback quotes what the student's code said; never let that carry the grader's own code."""
    return REDACTED if text and private_lines().any_in(text) else text


def scenarios_module(lesson: Lesson):
    """The lesson's scenarios, part of its hidden tests: `<hidden tests package>.scenarios`."""
    return importlib.import_module(f"{__package__}.{lesson.hidden_tests.name}.scenarios")


def auto_graded_points(lesson: Lesson = DEFAULT) -> dict:
    """grade_id -> points, for the auto-graded (code) test cells of the lesson's source notebook."""
    import nbformat

    notebook = nbformat.read(str(lesson.source_notebook), as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"] for c in notebook.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}


def seed_from_environment() -> int | None:
    value = os.environ.get(SEED_ENV, "").strip()
    return int(value) if value else None


class Judge:
    """Grades submissions one after another; holds the sandbox between them.

    Each judgement draws its scenarios from a seed of its own, unless `seed` (or
    AUTOGRADER_SEED) fixes it: then every judgement draws the same scenarios.
    """

    def __init__(self, limits: Limits | None = None, seed: int | None = None, lesson: Lesson = DEFAULT):
        self.lesson = lesson
        self.sandbox = Sandbox(limits, lesson)
        self.layout = course_layout(lesson.source_notebook)
        self.points = auto_graded_points(lesson)
        self.seed = seed if seed is not None else seed_from_environment()

    def judge_file(self, path: Path) -> dict:
        return self.judge(read_submission(path, self.layout))

    def judge(self, submission: Submission) -> dict:
        started = time.monotonic()
        seed = self.seed if self.seed is not None else random.SystemRandom().randrange(2 ** 32)
        run = GradingRun(self.sandbox, submission, self.layout, seed, self.lesson)
        collector = _Collector(run)
        tests = self.lesson.hidden_tests
        args = [str(tests), "-c", str(tests / "pytest.ini"), "-p", "no:terminal"]
        pytest.main(args, plugins=[collector])
        return self._verdict(submission, run, collector, time.monotonic() - started)

    def _verdict(self, submission, run, collector, seconds) -> dict:
        grades = {grade_id: {"points": points, "score": 0, "checks": []} for grade_id, points in self.points.items()}
        errors = list(collector.errors)
        for check in collector.checks:
            grade = grades.get(check.pop("grade_id"))
            if grade is None:
                errors.append(f"隐藏测试的 grade_id 不在笔记本里：{check['title']}")
                continue
            grade["checks"].append(check)
            grade["score"] += check["points"] if check["passed"] else 0
        for grade_id, grade in grades.items():
            total = sum(c["points"] for c in grade["checks"])
            if total != grade["points"]:
                errors.append(f"{grade_id}：隐藏测试一共 {total} 分，笔记本里是 {grade['points']} 分")
            grade["score"] = min(grade["score"], grade["points"])
        notes = list(dict.fromkeys(submission.notes + run.cell_notes()
                                   + ([TRACE_CUT] if run.trouble.kinds["trace"] else [])))
        for check in (c for grade in grades.values() for c in grade["checks"]):
            check["message"] = _redacted(check["message"])
        return {"grades": grades, "notes": [_redacted(note) for note in notes], "errors": errors,
                "seed": run.seed, "seconds": round(seconds, 2), "trouble": dict(run.trouble.kinds)}

    def close(self):
        self.sandbox.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description="用隐藏测试给一份或多份提交评分，输出 JSON 结论。")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--lesson", default=DEFAULT.assignment, choices=sorted(LESSONS),
                        help="提交属于哪一课（默认第 3 课 lesson03）")
    parser.add_argument("--seed", type=int, help="抽取场景用的随机种子（重现某次评分时用结论里的 seed）")
    args = parser.parse_args(argv)
    with Judge(seed=args.seed, lesson=lesson(args.lesson)) as judge:
        for path in args.notebooks:
            print(json.dumps(judge.judge_file(path), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
