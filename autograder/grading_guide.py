"""The grading guide for the written answers, for instructors only.

    python -m autograder.grading_guide [--lesson lesson04]   # writes build/grading-guide-<lesson>.html
    python -m autograder.grading_guide --print                # the same, as Markdown on stdout

nbgrader 0.9.6's formgrader shows the student's answer, a score box and a comment box,
but nothing from the source notebook. The reference answer and the rubric of each
manually graded cell live in that cell of source/ (a solution cell: the release replaces
it with a blank stub); this renders them next to the question the student saw, so a
grader can keep the guide open beside the formgrader. build/ is never released.
"""
import argparse
import html
from pathlib import Path

import nbformat
from nbconvert.filters.markdown import markdown2html

from .lessons import DEFAULT, LESSONS, Lesson, lesson
from .notebook_code import ROOT


def output(assignment: str) -> Path:
    return ROOT / "build" / f"grading-guide-{assignment}.html"


def manual_cells(of: Lesson = DEFAULT) -> list[dict]:
    """Each written answer: grade_id, points, the question before it, the reference answer and rubric."""
    cells = nbformat.read(str(of.source_notebook), as_version=4).cells
    found = []
    for number, cell in enumerate(cells):
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and grading.get("grade") and grading.get("solution"):
            question = next(c.source for c in reversed(cells[:number]) if c.cell_type == "markdown")
            found.append({"grade_id": grading["grade_id"], "points": grading["points"],
                          "question": question, "guide": cell.source})
    return found


# Which graded cells check which objective of lesson 3's cell 0. Instructors only: in the student notebook it
# would name the answers (the incident's root cause, what cpC needs) before the student has found them.
# (Lesson 4's map names no answer and is in its notebook's header.)
OBJECTIVES = """## 学习目标与评分单元格的对应

| 学习目标 / 完成标准 | 检验它的评分单元格 |
|---|---|
| 目标 1：判断检查点停在循环的哪一段，说出恢复时该做什么 | `test_recovery_action`、`why_cpA`、`why_cpB`、`why_cpC` |
| 目标 2：原子、持久的保存，会拒绝坏文件的加载，续跑接上计数器 | `test_save_load`、`test_run_agent` |
| 目标 3：区分已知的工具失败和结果未知的悬空调用，按工具性质对账 | `test_quiz_failure`、`test_quiz_delete`、`test_reconcile` |
| 目标 4：诊断重复执行事故的根因，写出修复并用真实崩溃验证 | `test_root_cause`、`root_cause_why`、`test_incident_fix` |
| cpA：没有悬空调用，直接续跑（崩溃在 B 写完之后、下一个 A 写完之前） | `test_recovery_action`、`why_cpA` |
| cpB：悬空的是只读调用，再执行一次补上结果 | `test_recovery_action`、`why_cpB`、`test_reconcile` |
| cpC：悬空的是 `send_email`，不重发，用 `is_error` 兜底 | `test_recovery_action`、`why_cpC`、`test_reconcile` |
| 事故根因：对悬空调用一律重新执行，不分工具 | `test_root_cause`、`root_cause_why` |
| 修复：按 `READ_ONLY_TOOLS` 分流，`send_email` 到不了 `execute_tool` | `test_reconcile` |
| 修复接进续跑之后，真实的崩溃与重启不再多发一封邮件 | `test_incident_fix` |
| 两条路径都恰好补回一个结果块，与悬空调用配对 | `test_reconcile`、`test_incident_fix` |
| 做完的任务不再调用模型；工具失败带 `is_error` 和错误文本 | `test_run_agent` |
"""


def title(of: Lesson) -> str:
    return f"第 {int(of.assignment.removeprefix('lesson'))} 课 · 笔答题评分指南"


def as_markdown(cells: list[dict], of: Lesson = DEFAULT) -> str:
    parts = [f"# {title(of)}（仅供教师）",
             f"在 formgrader 里逐份批改 {of.assignment} 时对照这里：每道题的题目、参考答案和评分标准。"
             "部分得分可以填小数（例如 0.5）；扣分时在评论框里写一句理由，学生会在反馈里看到它。",
             *([OBJECTIVES.strip()] if of is DEFAULT else [])]
    for cell in cells:
        parts.append(f"## `{cell['grade_id']}`（{cell['points']} 分）")
        parts.append("**题目：**\n\n" + cell["question"])
        parts.append(cell["guide"])
    return "\n\n".join(parts) + "\n"


def as_html(cells: list[dict], of: Lesson = DEFAULT) -> str:
    body = markdown2html(as_markdown(cells, of))
    return ("<!DOCTYPE html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title(of))}</title>"
            "<style>body{max-width:52em;margin:2em auto;font:15px/1.6 sans-serif}h2{border-top:1px solid #ccc;"
            "padding-top:1em}code{background:#f3f3f3}</style></head><body>" + body + "</body></html>\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", choices=list(LESSONS), default=DEFAULT.assignment, help="哪一课（默认 lesson03）")
    parser.add_argument("--print", action="store_true", help="print Markdown instead of writing the HTML file")
    parser.add_argument("--out", type=Path, help="the HTML file (default: build/grading-guide-<lesson>.html)")
    args = parser.parse_args(argv)
    of = lesson(args.lesson)
    cells = manual_cells(of)
    if args.print:
        print(as_markdown(cells, of), end="")
        return
    out = args.out or output(of.assignment)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(as_html(cells, of), encoding="utf-8")
    print(f"评分指南：{out}（{len(cells)} 道笔答题）")


if __name__ == "__main__":
    main()
