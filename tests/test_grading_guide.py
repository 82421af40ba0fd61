"""The grading guide for the written answers: every manually graded cell, with its question, reference
answer and rubric, rendered for instructors; none of it reaches release/."""
import re

import nbformat

from autograder.grading_guide import as_html, main, manual_cells
from autograder.lessons import lesson
from autograder.notebook_code import RELEASE_NOTEBOOK


def test_every_written_answer_has_a_reference_and_a_rubric():
    cells = manual_cells()
    assert [c["grade_id"] for c in cells] == ["why_cpA", "why_cpB", "why_cpC", "root_cause_why"]
    assert sum(c["points"] for c in cells) == 5
    for cell in cells:
        assert "**参考答案：**" in cell["guide"] and "**评分标准" in cell["guide"], cell["grade_id"]
        levels = re.findall(r"^- (?:第 \d 分|[\d.]+ 分)", cell["guide"], flags=re.M)
        assert len(levels) >= 2, f"{cell['grade_id']}: the rubric should name what full and partial credit need"
        assert cell["question"].strip() and "参考答案" not in cell["question"]


def test_the_guide_is_written_for_instructors_only(tmp_path):
    out = tmp_path / "guide.html"
    main(["--out", str(out)])
    page = out.read_text(encoding="utf-8")
    assert page == as_html(manual_cells()) and "评分标准" in page and "root_cause_why" in page
    release = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    released_text = "\n".join(c.source for c in release.cells)
    for cell in manual_cells():
        for line in cell["guide"].splitlines():
            if len(line.strip()) > 12:
                assert line.strip() not in released_text, f"release/ carries the guide: {line[:40]}"


def test_lesson_4_has_its_guide_too(tmp_path):
    out = tmp_path / "guide.html"
    main(["--lesson", "lesson04", "--out", str(out)])
    cells = manual_cells(lesson("lesson04"))
    assert [c["grade_id"] for c in cells] == ["why_S2", "why_S4", "why_S5", "root_cause_why"]
    assert sum(c["points"] for c in cells) == 5
    page = out.read_text(encoding="utf-8")
    assert "第 4 课 · 笔答题评分指南" in page and all(c["grade_id"] in page for c in cells)
    assert "why_cpA" not in page  # lesson 3's objectives map stays in lesson 3's guide
    for cell in cells:
        assert "**参考答案：**" in cell["guide"] and "**评分标准" in cell["guide"], cell["grade_id"]
