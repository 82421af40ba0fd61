"""The student's real path: the lesson in JupyterLab, in headless Chromium.

One walk through the lesson, in the order a student takes it: open the notebook, run a
visible check before writing anything (it fails), press Validate (it fails), type the
answers into the `# YOUR CODE HERE` cells, run everything, watch the checks pass and the
widgets render and respond, press Validate again (it passes). A screenshot of every step
goes to test-artifacts/browser/.
"""
import os
import subprocess

import nbformat
import pytest

from autograder.notebook_code import SOURCE_NOTEBOOK, definition_cells
from student import StudentNotebook, typed_answer

NOTEBOOK = "resume-from-checkpoint.ipynb"
# What a student writes in the manually graded answers (Validate wants every answer filled in).
WRITTEN_ANSWERS = {
    "why_cpA": "cpA 停在存档点 B 之后：最后一条消息已经是 tool_result，没有悬空调用，照常继续循环就行。",
    "why_cpB": "cpB 悬空的是 read_file。它只读，重跑一次没有副作用，所以重跑，把结果作为 tool_result 补上。",
    "why_cpC": "cpC 悬空的是 send_email。信可能已经发出去了，重跑会再发一封；所以不重跑，"
               "给它一个 is_error 的 tool_result，让模型自己先查一查再决定。",
    "root_cause_why": "出事时的 reconcile 对所有悬空调用一律重跑。进程在发信之后、存档点 B 之前被杀，"
                      "续跑时 send_email 又执行了一遍，同一封信就发了两次。",
}


@pytest.fixture(scope="module")
def notebook(page, lab, artifacts):
    student = StudentNotebook(page, lab, NOTEBOOK, artifacts)
    student.open()
    return student


@pytest.fixture(scope="module")
def answers():
    """grade_id -> the reference solution as a student would type it (from the source notebook)."""
    return {cell.metadata["nbgrader"]["grade_id"]: typed_answer(cell.source)
            for cell in definition_cells(SOURCE_NOTEBOOK) if cell.metadata["nbgrader"].get("solution")}


def cjk_fonts(fonts: dict) -> dict:
    return {family: glyphs for family, glyphs in fonts.items() if "CJK" in family and glyphs > 0}


def test_a_cjk_font_is_installed():
    families = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=True).stdout
    assert families.strip(), "没有能显示中文的字体：运行 `make system-deps`（fonts-noto-cjk）"


def test_chinese_prose_is_drawn_with_a_cjk_font(notebook):
    heading = notebook.page.locator(".jp-Notebook .jp-RenderedMarkdown h1").first
    drawn = notebook.fonts_drawing_chinese(heading)
    assert cjk_fonts(drawn["fonts"]), f"「{drawn['text']}」没有用中文字体画出来（会显示成方框）：{drawn['fonts']}"
    notebook.screenshot("opened")


def test_student_works_through_the_lesson(notebook, answers):
    solution_ids = notebook.grade_ids(lambda grade_id, cell: grade_id in answers)
    written_ids = notebook.grade_ids(lambda grade_id, cell: cell.cell_type == "markdown"
                                     and cell.metadata["nbgrader"].get("solution"))
    check_ids = notebook.grade_ids(lambda grade_id, cell: grade_id.startswith("test_"))
    assert set(written_ids) == set(WRITTEN_ANSWERS), "笔答题变了：更新 WRITTEN_ANSWERS"
    assert {"save_load", "run_agent", "reconcile", "recovery_action"} <= set(solution_ids)
    assert "test_save_load" in check_ids

    # Before writing anything: the first visible check fails, with the stub's message.
    for step in ("imports", "save_load", "test_save_load"):
        notebook.run(step)
    assert "NotImplementedError" in notebook.traceback("test_save_load")
    notebook.screenshot("check-fails-before-the-answer", notebook.cell("test_save_load"))

    # Validate on the unanswered notebook reports failures.
    dialog = notebook.validate()
    assert dialog.locator("#validation-message.validation-failed").count() == 1, dialog.inner_text()
    notebook.screenshot("validate-fails-before-the-answers")
    notebook.close_dialog()

    # Type every answer into its cell, the way a student does, then Run ▸ Run All Cells.
    for grade_id in solution_ids:
        notebook.type_into(grade_id, answers[grade_id])
    notebook.screenshot("answer-typed", notebook.cell("save_load"))
    for grade_id in written_ids:
        notebook.write_markdown(grade_id, WRITTEN_ANSWERS[grade_id])
        assert WRITTEN_ANSWERS[grade_id][:10] in notebook.cell(grade_id).locator(".jp-RenderedMarkdown").text_content()
    notebook.run_all()
    notebook.save()

    for grade_id in check_ids:
        assert notebook.prompt(grade_id) not in ("[ ]:", "[*]:"), f"可见检查 {grade_id} 没有运行"
        assert not notebook.traceback(grade_id), f"可见检查 {grade_id} 没通过：\n{notebook.traceback(grade_id)}"
    failing = [number for number in range(len(notebook.released_cells)) if notebook.traceback(number)]
    assert not failing, f"这些单元格报错了：{failing}\n{notebook.traceback(failing[0])}"
    assert "检查通过" in notebook.output_text("test_save_load")
    notebook.screenshot("checks-pass", notebook.cell("test_reconcile"))

    # What was saved is what was typed: the editor took the text as it is.
    saved = nbformat.read(str(notebook.path), as_version=4).cells
    for grade_id in solution_ids:
        assert saved[notebook.index(grade_id)].source.rstrip() == answers[grade_id]
    for grade_id in written_ids:
        assert saved[notebook.index(grade_id)].source == WRITTEN_ANSWERS[grade_id]

    # Validate on the answered notebook: nbgrader runs it server-side and reports success.
    dialog = notebook.validate()
    message = dialog.locator("#validation-message")
    assert "validation-success" in message.get_attribute("class"), dialog.inner_text()
    assert "Success! Your notebook passes all the tests." in message.inner_text()
    notebook.screenshot("validate-passes")
    notebook.close_dialog()


def test_no_errors_in_the_browser_console(notebook):
    errors = notebook.console_errors()
    assert not errors, "浏览器控制台里有错误：\n" + "\n".join(f"{e['type']}: {e['text']} ({e['url']})" for e in errors)
