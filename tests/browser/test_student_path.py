"""The student's real path: the lesson in JupyterLab, in headless Chromium.

One walk through the lesson, in the order a student takes it: open the notebook, run a
visible check before writing anything (it fails), press Validate (it fails), type the
answers into the `# YOUR CODE HERE` cells, run everything, watch the checks pass and the
widgets render and respond, press Validate again (it passes); then hand the saved notebook in
as a student without a Hub does, collect, grade it and open its feedback page. A screenshot of
every step goes to test-artifacts/browser/.
"""
import json
import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import expect

from autograder.notebook_code import SOURCE_NOTEBOOK
from course import load_sample
from student import (StudentNotebook, check_incident_replay, cjk_fonts, hand_in_and_grade, open_feedback, small_png,
                     typed_answers)

NOTEBOOK = "resume-from-checkpoint.ipynb"
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
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
    yield student
    (artifacts / "console.json").write_text(json.dumps(student.console, ensure_ascii=False, indent=1))


@pytest.fixture(scope="module")
def answers():
    return typed_answers(SOURCE_NOTEBOOK)


def test_a_cjk_font_is_installed():
    families = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=True).stdout
    assert families.strip(), "没有能显示中文的字体：运行 `make system-deps`（fonts-noto-cjk）"


def test_chinese_prose_is_drawn_with_a_cjk_font(notebook):
    heading = notebook.page.locator(".jp-Notebook .jp-RenderedMarkdown h1").first
    drawn = notebook.fonts_drawing_chinese(heading)
    assert cjk_fonts(drawn["fonts"]), f"「{drawn['text']}」没有用中文字体画出来（会显示成方框）：{drawn['fonts']}"
    notebook.screenshot("opened")


def test_student_works_through_the_lesson(notebook, answers, reference):
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
    assert notebook.shown_text(dialog.locator("#validation-message p").first) == "这个单元格没有通过检查："
    assert notebook.shown_text(dialog.locator(".jp-Dialog-header")) == "检查结果"
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

    failing = [number for number in range(len(notebook.released_cells)) if notebook.traceback(number)]
    assert not failing, f"这些单元格报错了：{failing}\n{notebook.traceback(failing[0])}"
    for grade_id in check_ids:
        assert notebook.prompt(grade_id) not in ("[ ]:", "[*]:"), f"可见检查 {grade_id} 没有运行"
    assert "检查通过" in notebook.output_text("test_save_load")
    notebook.screenshot("checks-pass", notebook.cell("test_reconcile"))

    # What was saved is what was typed: the editor took the text as it is.
    saved = nbformat.read(str(notebook.path), as_version=4).cells
    for grade_id in solution_ids:
        assert saved[notebook.index(grade_id)].source.rstrip() == answers[grade_id]
    for grade_id in written_ids:
        assert saved[notebook.index(grade_id)].source == WRITTEN_ANSWERS[grade_id]

    viewer_shot, viewer_cell = check_checkpoint_viewers(notebook, reference)
    replay_shot = check_incident_replay(notebook)
    check_crash_explorer(notebook)
    readme_screenshots(notebook.artifacts, shorten_viewer(viewer_shot, viewer_cell), replay_shot)

    # Validate on the answered notebook: nbgrader runs it server-side and reports success.
    dialog = notebook.validate()
    message = dialog.locator("#validation-message")
    assert "validation-success" in message.get_attribute("class"), dialog.inner_text()
    assert notebook.shown_text(message.locator("p").first) == "通过！notebook 里的检查全部通过。"
    notebook.screenshot("validate-passes")
    notebook.close_dialog()


def check_checkpoint_viewers(notebook, reference):
    """Each viewer draws its sample checkpoint and names the action the student's recovery_action chose."""
    cells = notebook.indexes_calling("checkpoint_viewer")
    assert cells, "notebook 里没有调用 checkpoint_viewer 的单元格"
    for number in cells:
        sample = re.search(r'load_sample\("(cp[ABC])"\)', notebook.released_cells[number].source).group(1)
        checkpoint = load_sample(sample)
        viewer = notebook.cell(number).locator(".checkpoint-viewer")
        viewer.wait_for()
        assert viewer.locator(".cp-field-task").text_content() == json.dumps(checkpoint["task"], ensure_ascii=False)
        assert viewer.locator(".cp-msg").count() == len(checkpoint["messages"])
        assert viewer.locator(".cp-pending").count() == (checkpoint["pendingToolUse"] is not None)
        action = reference.recovery_action(checkpoint)
        assert viewer.locator(".cp-action-name").text_content() == repr(action), f"{sample} 的恢复动作应该是 {action}"
        drawn = notebook.fonts_drawing_chinese(viewer)
        assert cjk_fonts(drawn["fonts"]), f"查看器里的「{drawn['text']}」没有用中文字体：{drawn['fonts']}"
        shot = notebook.screenshot(f"checkpoint-viewer-{sample}", notebook.cell(number))
    return shot, notebook.cell(number)


def check_crash_explorer(notebook):
    """The explorer starts at the incident's crash point; moving the slider kills and resumes there for real."""
    (number,) = notebook.indexes_calling("crash_explorer")
    explorer = notebook.cell(number).locator(".ce-view")
    explorer.wait_for()
    label, crash = explorer.locator(".ce-label"), explorer.locator(".ce-crash")
    assert "send_email" in label.text_content()
    assert crash.get_attribute("class").split() == ["ce-crash", "ce-holds"], crash.text_content()
    notebook.screenshot("crash-explorer", notebook.cell(number))
    position = re.match(r"崩溃点 (\d+)/(\d+)", label.text_content())
    before, report_before = int(position.group(1)), crash.text_content()

    slider = explorer.get_by_role("slider")
    slider.click()  # the handle takes the keyboard, as it does for a student
    notebook.page.keyboard.press("ArrowLeft")
    expect(label).to_contain_text(f"崩溃点 {before - 1}/{position.group(2)}")
    expect(crash).not_to_have_text(report_before, timeout=60_000)  # killed and resumed again, in the kernel
    assert crash.get_attribute("class").split() == ["ce-crash", "ce-holds"], crash.text_content()
    assert explorer.locator(".ce-selected").count() == 1
    drawn = notebook.fonts_drawing_chinese(explorer.locator(".ce-invariants"))
    assert cjk_fonts(drawn["fonts"]), f"探索器里的「{drawn['text']}」没有用中文字体：{drawn['fonts']}"
    notebook.screenshot("crash-explorer-moved", notebook.cell(number))


def shorten_viewer(shot: Path, cell) -> Image.Image:
    """The last viewer without the middle of its timeline: its fields, then the last three messages
    (the dangling call and the recovery action). A whole one is too tall for the README."""
    viewer, top = cell.locator(".checkpoint-viewer"), cell.bounding_box()["y"]
    fields = viewer.locator(".cp-fields").bounding_box()
    head_end = round(fields["y"] + fields["height"] - top + 6)
    tail_start = round(viewer.locator(".cp-msg").nth(-3).bounding_box()["y"] - top - 6)
    image = Image.open(shot).convert("RGB")
    gap = Image.new("RGB", (image.width, 12), "white")
    ImageDraw.Draw(gap).line([(80, 6), (image.width - 10, 6)], fill="#bbbbbb", width=1)  # the cut
    parts = [image.crop((0, 0, image.width, head_end)), gap, image.crop((0, tail_start, image.width, image.height))]
    shortened = Image.new("RGB", (image.width, sum(part.height for part in parts)), "white")
    offset = 0
    for part in parts:
        shortened.paste(part, (0, offset))
        offset += part.height
    return shortened


def readme_screenshots(artifacts: Path, viewer: Image.Image, replay_shot: Path) -> None:
    """The README's two pictures, as small palette PNGs: always as artifacts, and in docs/screenshots/
    when UPDATE_SCREENSHOTS=1 (`make test-browser UPDATE_SCREENSHOTS=1`; commit the result)."""
    targets = [artifacts] + ([DOCS_SCREENSHOTS] if os.environ.get("UPDATE_SCREENSHOTS") == "1" else [])
    for name, image in (("checkpoint-viewer.png", viewer), ("incident-replay.png", Image.open(replay_shot))):
        for folder in targets:
            small_png(image, folder / name)


def test_no_errors_in_the_browser_console(notebook):
    errors = notebook.console_errors()
    assert not errors, "浏览器控制台里有错误：\n" + "\n".join(f"{e['type']}: {e['text']} ({e['url']})" for e in errors)


def test_the_saved_notebook_goes_in_by_handin_and_comes_back_as_chinese_feedback(notebook, tmp_path, artifacts):
    """The hand-in path without a Hub, on what the browser saved: `lab.py handin` -> `nbgrader zip_collect`
    (make collect) -> make grade -> the feedback page, opened in the browser."""
    course, graded = hand_in_and_grade(notebook, tmp_path)
    assert graded.returncode == 0, f"{graded.stdout[-2000:]}\n{graded.stderr[-3000:]}"
    assert "书面回答还有 4 份待人工批改" in graded.stdout  # the four answers typed in the browser
    page = open_feedback(notebook, course, artifacts / "feedback-zh-cn.png")
    expect(page.locator("h4").first).to_contain_text("（得分 23.0 / 28.0）")  # every automatic point; 5 to grade
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        small_png(Image.open(artifacts / "feedback-zh-cn.png"), DOCS_SCREENSHOTS / "feedback-zh-cn.png")
    page.close()
