"""The class report for the instructor: one self-contained HTML page.

    python -m autograder.report [--lesson lesson04] [course_root]   # writes reports/<lesson>.html

One page per lesson (reports/lesson03.html, reports/lesson04.html), each linking to the others:
everything on a page is about that lesson's cells, checks and sandbox runs, and an instructor
looks at one lesson at a time, after its deadline; the scores of all lessons side by side are
grades.csv and the LMS export.

`make grade` writes it at the end. What it shows, read from the gradebook, the
autograded notebooks and the grading records (autograder.records):
- a histogram of the students' scores (a PNG made with matplotlib, embedded; where no font has Chinese glyphs, a
  line saying what to install instead);
- per graded cell, how many students earned full, partial and no points;
- the most common mistakes by name: the titles of the failed checks, as the judge
  writes them into the feedback (`✘ title（0 / n 分）` followed by the message);
- one table of each student's sandbox trouble (time, memory, processes, disk, exits, skipped files);
- the students whose code timed out or crashed the sandbox, whose grading failed,
  or whose file had to be repaired, with the note their feedback carries.

It quotes only what the feedback already shows students: no hidden test code, no
reference solution, no student code.
"""
import argparse
import base64
import io
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jinja2 import Environment

from nbgrader.api import Gradebook

from autograder import grade, trouble
from autograder.lessons import LESSONS
from autograder.nbgrader_judge import notes_markdown
from autograder.records import Records
from autograder.scores import class_scores
from instruments.host import cjk_font

FAILED_CHECK = re.compile(r"^✘ (?P<title>.+)（0 / [\d.]+ 分）$")
NOTES_HEADING = notes_markdown([]).strip()  # the heading of the judge's notes cell
TIMED_OUT_OR_CRASHED = "卡住或让进程退出"  # how the judge's notes say a cell hung or killed its process
UNANSWERED = "NotImplementedError"  # what the stub left in an answer cell raises (ClearSolutions.code_stub)
TOP_MISTAKES = 15


@dataclass
class CellStats:
    grade_id: str
    max_score: float
    full: int = 0
    partial: int = 0
    zero: int = 0
    manual_pending: int = 0

    @property
    def graded(self) -> int:
        return self.full + self.partial + self.zero

    @property
    def pass_rate(self) -> float | None:
        """Share of students with full points; None while some answers wait for a human grader."""
        return self.full / self.graded if self.graded and not self.manual_pending else None


@dataclass
class Mistake:
    """One check that students failed, named by its title in the feedback."""
    grade_id: str
    title: str
    answered: list = field(default_factory=list)  # students who wrote an answer and still failed
    unanswered: list = field(default_factory=list)  # students who failed because the answer is still the stub
    messages: Counter = field(default_factory=Counter)  # feedback messages of the answered ones

    @property
    def example(self) -> str:
        return self.messages.most_common(1)[0][0] if self.messages else ""

    def add(self, student: str, message: str) -> None:
        if UNANSWERED in message:
            self.unanswered.append(student)
        else:
            self.answered.append(student)
            self.messages[message] += 1


@dataclass
class ClassReport:
    assignment: str
    others: list = field(default_factory=list)  # the other lessons graded in this gradebook, for links
    scores: dict = field(default_factory=dict)  # student -> score
    max_score: float = 0.0
    cells: list = field(default_factory=list)  # CellStats in notebook order
    mistakes: list = field(default_factory=list)  # Mistake, most common first
    problems: list = field(default_factory=list)  # (student, kind, detail)
    trouble: list = field(default_factory=list)  # autograder.trouble.rows: (student, [count per kind])


def waits_for_a_grader(cell: dict) -> bool:
    """A cell of autograder.scores.class_scores that only a human grader can score, not scored yet."""
    return cell["auto_score"] is None and cell["manual_score"] is None


def feedback_of(notebook_path: Path) -> tuple[dict, list]:
    """({grade_id: [(failed check title, message)]}, [notes]) from one autograded notebook."""
    notebook = nbformat.read(str(notebook_path), as_version=4)
    failed, notes = {}, []
    for cell in notebook.cells:
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and cell.source.startswith(NOTES_HEADING):
            notes += [line[2:] for line in cell.source.splitlines() if line.startswith("- ")]
        if cell.cell_type != "code" or not grading.get("grade"):
            continue
        lines = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        lines = lines.splitlines()
        checks = failed.setdefault(grading["grade_id"], [])
        for number, line in enumerate(lines):
            match = FAILED_CHECK.match(line)
            if match:
                following = lines[number + 1].strip() if number + 1 < len(lines) else ""
                checks.append((match["title"], following))
    return failed, notes


def collect(root: Path, db_url: str, reports: dict, assignment: str) -> ClassReport:
    gradebook = class_scores(db_url, assignment)
    with Gradebook(db_url) as book:
        report = ClassReport(assignment, [name for name in grade.graded_lessons(book) if name != assignment])
    stats, mistakes = {}, {}
    for student in sorted(gradebook):
        entry = gradebook[student]
        report.scores[student] = entry["score"]
        report.max_score = max(report.max_score, entry["max_score"])
        for grade_id, cell in entry["cells"].items():
            row = stats.setdefault(grade_id, CellStats(grade_id, cell["max_score"]))
            if waits_for_a_grader(cell):
                row.manual_pending += 1
            elif cell["score"] >= cell["max_score"]:
                row.full += 1
            elif cell["score"] > 0:
                row.partial += 1
            else:
                row.zero += 1
        notes = []
        for path in sorted((root / "autograded" / student / assignment).glob("*.ipynb")):
            failed, found_notes = feedback_of(path)
            notes += found_notes
            for grade_id, checks in failed.items():
                for title, message in checks:
                    mistakes.setdefault((grade_id, title), Mistake(grade_id, title)).add(student, message)
        graded = reports.get(student) or {}
        for note in dict.fromkeys(note for note in notes if TIMED_OUT_OR_CRASHED in note):
            report.problems.append((student, "代码超时或崩溃", note))
        for note in graded.get("notes", []):  # what staging found wrong with the file, or a worker that died
            report.problems.append((student, "评分进程崩溃" if note == grade.WORKER_DIED else "提交文件有问题", note))
        for error in graded.get("errors", []):
            report.problems.append((student, "评分器出错", str(error).strip().splitlines()[-1][:300]))
    report.cells = list(stats.values())
    report.trouble = trouble.rows([reports[s] for s in sorted(reports)])
    ranked = sorted(mistakes.values(), key=lambda m: (-len(m.answered), -len(m.unanswered), m.grade_id))
    report.mistakes = [m for m in ranked if m.answered][:TOP_MISTAKES]
    order = ["代码超时或崩溃", "评分进程崩溃", "评分器出错", "提交文件有问题"]
    report.problems.sort(key=lambda p: (order.index(p[1]), p[0]))
    return report


def manual_grading_left(db_url: str, assignment: str) -> dict:
    """{grade_id: students whose answer there still waits for a human grader}, cells in notebook order."""
    waiting = {}
    for student, entry in sorted(class_scores(db_url, assignment).items()):
        for grade_id, cell in entry["cells"].items():
            if waits_for_a_grader(cell):
                waiting.setdefault(grade_id, []).append(student)
    return waiting


def manual_grading_status(db_url: str, assignment: str) -> str:
    """One sentence for the summaries: what is left to grade by hand and what to run after, or that it is done."""
    waiting = manual_grading_left(db_url, assignment)
    if not waiting:
        return f"{assignment} 需要人工批改的书面回答都已批改完。"
    answers = sum(len(students) for students in waiting.values())
    return (f"{assignment} 的书面回答还有 {answers} 份待人工批改（{'、'.join(waiting)}）：请在 formgrader 里批改，"
            "然后运行 make feedback 更新反馈、grades.csv 和全班报告。")


def load_plotting():
    """matplotlib's pyplot without a display (importing it takes a second: make grade does it early)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot


def histogram_png(report: ClassReport) -> str:
    """The score histogram as base64 PNG, with Chinese labels."""
    plt = load_plotting()
    font = cjk_font()
    scores = list(report.scores.values())
    top = report.max_score or 1
    bins = [x - 0.5 for x in range(int(top) + 2)] if top <= 60 else 20
    with plt.rc_context({"font.family": [font, "DejaVu Sans"], "axes.unicode_minus": False}):
        figure, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
        ax.hist(scores, bins=bins, color="#4878a8", edgecolor="white")
        ax.set_xlim(-0.5, top + 0.5)
        ax.set_xlabel(f"得分（满分 {top:g}）")
        ax.set_ylabel("人数")
        ax.set_title(f"{report.assignment} 得分分布（{len(scores)} 人）")
        ax.yaxis.get_major_locator().set_params(integer=True)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110)
        plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


PAGE = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>{{ r.assignment }} 全班评分报告</title>
<style>
body { font-family: "Noto Sans CJK SC", sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #ccc; padding: .3em .6em; }
th { background: #f3f3f3; } td.n { text-align: right; } .bar { background: #4878a8; height: .8em; }
pre { white-space: pre-wrap; margin: 0; font-family: inherit; }
</style></head><body>
<h1>{{ r.assignment }} 全班评分报告</h1>
{% if r.others %}<p>其他课的报告：{% for name in r.others %}<a href="{{ name }}.html">{{ name }}</a>{% if not loop.last %}、{% endif %}{% endfor %}（各课的成绩并排在 grades.csv 里）。</p>{% endif %}
<p>已评分 {{ r.scores|length }} 份{% if r.scores %}：
平均 {{ "%.1f"|format(mean) }}，中位数 {{ "%g"|format(median) }}，满分 {{ "%g"|format(r.max_score) }}{% endif %}。
人工评分的题目还没评时按 0 分计入总分。</p>
{% if png %}<img alt="得分分布直方图" src="data:image/png;base64,{{ png }}">{% elif chart_note %}<p>（没有画得分分布直方图：{{ chart_note }}）</p>{% endif %}

<h2>每道题的通过率</h2>
<table><tr><th>题目（grade_id）</th><th>分值</th><th>满分</th><th>部分得分</th><th>0 分</th><th>待人工评分</th><th>通过率</th><th></th></tr>
{% for c in r.cells %}<tr><td>{{ c.grade_id }}</td><td class="n">{{ "%g"|format(c.max_score) }}</td>
<td class="n">{{ c.full }}</td><td class="n">{{ c.partial }}</td><td class="n">{{ c.zero }}</td>
<td class="n">{{ c.manual_pending }}</td>
<td class="n">{% if c.pass_rate is not none %}{{ "%.0f"|format(100 * c.pass_rate) }}%{% elif c.manual_pending %}待人工评分{% else %}—{% endif %}</td>
<td style="width:10em">{% if c.pass_rate is not none %}<div class="bar" style="width:{{ 100 * c.pass_rate }}%"></div>{% endif %}</td></tr>
{% endfor %}</table>

<h2>最常见的错误</h2>
{% if r.mistakes %}<p>按没通过的检查归类，检查的名称和提示都是反馈里给学生看的原话（提示取最常见的一条）。
「作答了仍没通过」不算还停在 <code>raise NotImplementedError</code> 的答卷，那些另记在「未作答」。</p>
<table><tr><th>作答了仍没通过</th><th>未作答</th><th>题目</th><th>没通过的检查</th><th>反馈里最常见的提示</th><th>学生</th></tr>
{% for m in r.mistakes %}<tr><td class="n">{{ m.answered|length }}</td><td class="n">{{ m.unanswered|length }}</td>
<td>{{ m.grade_id }}</td><td>{{ m.title }}</td><td><pre>{{ m.example }}</pre></td>
<td>{{ m.answered[:8]|join("，") }}{% if m.answered|length > 8 %} 等{% endif %}</td></tr>
{% endfor %}</table>{% else %}<p>没有作答了却没通过的检查。</p>{% endif %}

<h2>评分时遇到的麻烦（每种情况出现的次数）</h2>
{% if r.trouble %}<p>{{ output_note }}</p>
<table><tr><th>学生</th>{% for label in kinds %}<th>{{ label }}</th>{% endfor %}</tr>
{% for student, counts in r.trouble %}<tr><td>{{ student }}</td>{% for n in counts %}<td class="n">{{ n or "" }}</td>{% endfor %}</tr>
{% endfor %}</table>{% else %}<p>没有。</p>{% endif %}

<h2>超时、崩溃或提交有问题的学生</h2>
{% if r.problems %}<table><tr><th>学生</th><th>情况</th><th>说明</th></tr>
{% for student, kind, detail in r.problems %}<tr><td>{{ student }}</td><td>{{ kind }}</td><td><pre>{{ detail }}</pre></td></tr>
{% endfor %}</table>{% else %}<p>没有。</p>{% endif %}
</body></html>
"""


def render_html(report: ClassReport) -> str:
    scores = sorted(report.scores.values())
    mean = sum(scores) / len(scores) if scores else 0.0
    median = (scores[len(scores) // 2] + scores[(len(scores) - 1) // 2]) / 2 if scores else 0.0
    png, chart_note = "", ""
    if scores:
        try:
            png = histogram_png(report)
        except RuntimeError as missing_font:  # the page, written after the whole class was graded, is never lost
            chart_note = str(missing_font)
    template = Environment(autoescape=True).from_string(PAGE)
    return template.render(r=report, mean=mean, median=median, png=png, chart_note=chart_note,
                           kinds=list(trouble.KINDS.values()), output_note=trouble.OUTPUT_NOTE)


def write_report(root: Path, db_url: str, reports: dict, assignment: str) -> Path:
    target = root / "reports" / f"{assignment}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o700)  # every student's score: for the instructor, not for sandboxed student code
    target.write_text(render_html(collect(root, db_url, reports, assignment)), encoding="utf-8")
    return target


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="全班评分报告（make grade 结束时也会写）")
    parser.add_argument("course_root", nargs="?", default=".")
    parser.add_argument("--lesson", choices=list(LESSONS), help="只写这一课的（默认：成绩册里有提交的每一课）")
    args = parser.parse_args(argv)
    root = Path(args.course_root).resolve()
    db_url = grade.Grader(root).db_url
    with Gradebook(db_url) as gradebook:
        lessons = [args.lesson] if args.lesson else grade.graded_lessons(gradebook)
    for assignment in lessons:
        print(f"全班评分报告：{write_report(root, db_url, Records(root, assignment).reports(), assignment)}")


if __name__ == "__main__":
    main()
