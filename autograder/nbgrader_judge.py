"""nbgrader's autograde step with the judge in place of the student's kernel.

nbgrader_config.py lists `SandboxJudge` first in `Autograde.autograde_preprocessors`,
where nbgrader's `Execute` would be. Nothing from the notebook is executed by nbgrader:
the judge runs the student's solution cells in its sandbox, and this preprocessor writes
the result into every auto-graded test cell as outputs that nbgrader already knows how
to score (`nbgrader.utils.determine_grade`): a stdout stream with the feedback in
Chinese, then an `execute_result` holding the cell's score (partial credit). The rest of
nbgrader — SaveAutoGrades, the gradebook, `generate_feedback`, `export`, the formgrader
— works unchanged, and the written answers stay for manual grading.

Plain `nbgrader autograde` judges each notebook here, in one judge per lesson and process
(the lesson is nbgrader's assignment: lesson03, lesson04).
`make grade` judges the class in its pool of worker processes first and hands each
student's verdict in through the `SandboxJudge.verdicts` option.
"""
import atexit

import nbformat

from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict

from .judge import Judge
from .lessons import lesson
from .submission import NOTES_KEY, submission_from_notebook

HEADER = "评分器在隔离的进程里检查了你的代码（上面的可见检查只是自测，这里的结果才计分）："
GRADER_TROUBLE = "评分器在检查你的提交时自己出了错，受影响的检查暂按未通过计；老师会复核这份提交。"

_judges = {}  # assignment -> its Judge


def shared_judge(assignment: str) -> Judge:
    """One judge (one sandbox) per lesson and process, shared by every notebook nbgrader autogrades."""
    if assignment not in _judges:
        _judges[assignment] = Judge(lesson=lesson(assignment))
        atexit.register(_judges[assignment].close)
    return _judges[assignment]


def cell_report(grade: dict) -> str:
    lines = [HEADER]
    for check in grade["checks"]:
        if check["passed"]:
            lines.append(f"✔ {check['title']}（{check['points']:g} 分）")
        else:
            lines.append(f"✘ {check['title']}（0 / {check['points']:g} 分）")
            lines.append(f"    {check['message']}")
    lines.append(f"本格得分：{grade['score']:g} / {grade['points']:g}")
    return "\n".join(lines) + "\n"


def notes_markdown(notes: list) -> str:
    return "### 自动评分说明\n\n" + "\n".join(f"- {note}" for note in notes)


def write_verdict(notebook, verdict: dict) -> None:
    """Put the verdict into the notebook as nbgrader-scorable outputs and a notes cell."""
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or grade_id not in verdict["grades"]:
            continue
        grade = verdict["grades"][grade_id]
        cell.outputs = [
            new_output("stream", name="stdout", text=cell_report(grade)),
            new_output("execute_result", data={"text/plain": f"{grade['score']:g}"}, execution_count=None),
        ]
        cell.execution_count = None
    notes = list(dict.fromkeys(verdict["notes"] + ([GRADER_TROUBLE] if verdict["errors"] else [])))
    if notes:
        notebook.cells.insert(0, new_markdown_cell(notes_markdown(notes)))
    notebook.metadata.pop(NOTES_KEY, None)


class SandboxJudge(NbGraderPreprocessor):
    """Grades the notebook with autograder.judge instead of executing it."""

    verdicts = Dict(help="{notebook name: verdict} already given by the judge for the student being autograded "
                         "(make grade sets it for each student); a notebook not in it is judged here").tag(config=True)

    def preprocess(self, nb, resources):
        verdict = self.verdicts.get(resources["nbgrader"]["notebook"])
        if verdict is None:
            judge = shared_judge(resources["nbgrader"]["assignment"])
            submission = submission_from_notebook(nb, judge.layout)
            submission.notebook = nbformat.writes(nb).encode("utf-8")
            verdict = judge.judge(submission)
        for error in verdict["errors"]:
            self.log.error("评分器出错：%s", error)
        write_verdict(nb, verdict)
        return nb, resources
