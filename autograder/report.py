"""The class report for the instructor: one self-contained HTML page.

    python -m autograder.report [lesson03]      # writes reports/lesson03.html

What it shows, read from the gradebook, the autograded notebooks and the grading
records of autograder.classgrade:
- a histogram of the students' scores (a PNG made with matplotlib, embedded);
- per graded cell, how many students earned full, partial and no points;
- the most common mistakes, by the messages the feedback shows students (the text
  of the failures in the autograded test cells, which is all a student sees);
- the students whose grading failed, crashed or timed out, and why.

It never quotes code: not the hidden tests, not the students' answers.
"""
import argparse
import base64
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jinja2 import Environment

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIMEOUT_ERRORS = ("CellTimeoutError", "TimeoutError", "KeyboardInterrupt")
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
class ClassReport:
    assignment: str
    scores: dict = field(default_factory=dict)  # student -> score
    max_score: float = 0.0
    cells: list = field(default_factory=list)  # CellStats in notebook order
    mistakes: list = field(default_factory=list)  # (count, grade_id, message, students)
    problems: list = field(default_factory=list)  # (student, kind, detail)
    submissions: int = 0


def failure_messages(cell) -> list:
    """What the student is told about a failed check: the error's message, first lines only."""
    messages = []
    for output in cell.get("outputs", []):
        if output.get("output_type") != "error":
            continue
        text = ANSI.sub("", output.get("evalue", "")).strip()
        text = "\n".join(line for line in text.splitlines()[:3]) or output.get("ename", "错误")
        messages.append((output.get("ename", ""), text))
    return messages


def read_autograded(notebook_path: Path):
    """{grade_id: [(error name, message)]} for the failed test cells of one autograded notebook."""
    notebook = nbformat.read(str(notebook_path), as_version=4)
    found = {}
    for cell in notebook.cells:
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("grade") and cell.cell_type == "code":
            found[grading["grade_id"]] = failure_messages(cell)
    return found


def collect(root: Path, assignment: str, db_url: str, course_id: str, autograded_dir: str = "autograded",
            records: dict | None = None) -> ClassReport:
    from autograder.gradebook_merge import class_scores

    gradebook = class_scores(db_url, assignment, course_id)
    report = ClassReport(assignment, submissions=len(records or gradebook))
    records = records or {}
    failed = {student for student, record in records.items() if record and record.get("status") != "graded"}
    stats = {}
    mistakes = {}
    for student in sorted(gradebook):
        if student in failed:
            continue
        entry = gradebook[student]
        report.scores[student] = entry["score"]
        report.max_score = max(report.max_score, entry["max_score"])
        for grade_id, cell in entry["cells"].items():
            row = stats.setdefault(grade_id, CellStats(grade_id, cell["max_score"]))
            if cell["auto_score"] is None and cell["manual_score"] is None:
                row.manual_pending += 1
            elif cell["score"] >= cell["max_score"]:
                row.full += 1
            elif cell["score"] > 0:
                row.partial += 1
            else:
                row.zero += 1
        notebook = root / autograded_dir / student / assignment
        for path in sorted(notebook.glob("*.ipynb")):
            for grade_id, messages in read_autograded(path).items():
                for name, message in messages:
                    if name in TIMEOUT_ERRORS:
                        report.problems.append((student, "超时", f"{grade_id}：{message}"))
                    mistakes.setdefault((grade_id, message), []).append(student)
    report.cells = list(stats.values())
    counted = Counter({key: len(students) for key, students in mistakes.items()})
    report.mistakes = [(count, grade_id, message, sorted(set(mistakes[(grade_id, message)])))
                       for (grade_id, message), count in counted.most_common(TOP_MISTAKES)]
    kinds = {"failed": "无法评分", "crashed": "评分崩溃或超时"}
    for student in sorted(failed):
        record = records[student]
        report.problems.append((student, kinds.get(record["status"], record["status"]),
                                reason(record.get("error", ""))))
    return report


EXCEPTION_LINE = re.compile(r"^\s*([\w.]+(Error|Exception|Interrupt|Exit)):?(.*)$")


def reason(error_text: str) -> str:
    """The line that names what went wrong (the exception) out of nbgrader's error log."""
    lines = [line.strip() for line in error_text.splitlines() if line.strip()]
    exceptions = [line for line in lines if EXCEPTION_LINE.match(line)]
    return (exceptions or lines or [""])[-1][:300]


CJK_FONT = "Noto Sans CJK SC"  # Debian's fonts-noto-cjk, installed by `make system-deps`


def cjk_font() -> str:
    from matplotlib import font_manager

    try:
        font_manager.findfont(CJK_FONT, fallback_to_default=False)
    except ValueError:
        raise RuntimeError(f"没有找到中文字体 {CJK_FONT}：先运行 `make system-deps`（安装 fonts-noto-cjk）。")
    return CJK_FONT


def histogram_png(report: ClassReport) -> str:
    """The score histogram as base64 PNG, with Chinese labels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
<p>提交 {{ r.submissions }} 份，已评分 {{ r.scores|length }} 份{% if r.scores %}：
平均 {{ "%.1f"|format(mean) }}，中位数 {{ "%g"|format(median) }}，满分 {{ "%g"|format(r.max_score) }}{% endif %}。
人工评分的题目还没评时按 0 分计入总分。</p>
{% if png %}<img alt="得分分布直方图" src="data:image/png;base64,{{ png }}">{% endif %}

<h2>每道题的通过率</h2>
<table><tr><th>题目（grade_id）</th><th>分值</th><th>满分</th><th>部分得分</th><th>0 分</th><th>待人工评分</th><th>通过率</th><th></th></tr>
{% for c in r.cells %}<tr><td>{{ c.grade_id }}</td><td class="n">{{ "%g"|format(c.max_score) }}</td>
<td class="n">{{ c.full }}</td><td class="n">{{ c.partial }}</td><td class="n">{{ c.zero }}</td>
<td class="n">{{ c.manual_pending }}</td>
<td class="n">{% if c.pass_rate is not none %}{{ "%.0f"|format(100 * c.pass_rate) }}%{% elif c.manual_pending %}待人工评分{% else %}—{% endif %}</td>
<td style="width:10em">{% if c.pass_rate is not none %}<div class="bar" style="width:{{ 100 * c.pass_rate }}%"></div>{% endif %}</td></tr>
{% endfor %}</table>

<h2>最常见的错误</h2>
{% if r.mistakes %}<p>按反馈里给学生看的提示归类（同一提示算一类）。</p>
<table><tr><th>人数</th><th>题目</th><th>反馈里的提示</th><th>学生</th></tr>
{% for count, grade_id, message, students in r.mistakes %}<tr><td class="n">{{ count }}</td><td>{{ grade_id }}</td>
<td><pre>{{ message }}</pre></td><td>{{ students[:8]|join("，") }}{% if students|length > 8 %} 等{% endif %}</td></tr>
{% endfor %}</table>{% else %}<p>没有失败的检查。</p>{% endif %}

<h2>评分失败、崩溃或超时的学生</h2>
{% if r.problems %}<table><tr><th>学生</th><th>情况</th><th>说明</th></tr>
{% for student, kind, detail in r.problems %}<tr><td>{{ student }}</td><td>{{ kind }}</td><td><pre>{{ detail }}</pre></td></tr>
{% endfor %}</table>{% else %}<p>没有。</p>{% endif %}
</body></html>
"""


def render_html(report: ClassReport) -> str:
    scores = sorted(report.scores.values())
    mean = sum(scores) / len(scores) if scores else 0.0
    median = (scores[len(scores) // 2] + scores[(len(scores) - 1) // 2]) / 2 if scores else 0.0
    template = Environment(autoescape=True).from_string(PAGE)
    return template.render(r=report, mean=mean, median=median, png=histogram_png(report) if scores else "")


def write_report(root: Path, assignment: str, db_url: str, course_id: str, autograded_dir: str = "autograded",
                 records: dict | None = None) -> Path:
    report = collect(root, assignment, db_url, course_id, autograded_dir, records)
    target = root / "reports" / f"{assignment}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_html(report), encoding="utf-8")
    return target


def main(argv=None) -> None:
    from nbgrader.apps.autogradeapp import AutogradeApp

    from autograder.classgrade import ASSIGNMENT, Records

    parser = argparse.ArgumentParser(description="全班评分报告")
    parser.add_argument("assignment", nargs="?", default=ASSIGNMENT)
    args, nbgrader_options = parser.parse_known_args(argv)
    app = AutogradeApp()
    app.initialize([args.assignment, *nbgrader_options])
    root = Path(app.coursedir.root)
    path = write_report(root, args.assignment, app.coursedir.db_url, app.coursedir.course_id,
                        app.coursedir.autograded_directory, Records(root, args.assignment).all())
    print(f"全班评分报告：{path}")


if __name__ == "__main__":
    main()
