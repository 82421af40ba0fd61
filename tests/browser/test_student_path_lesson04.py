"""Lesson 4's student path, walked as test_student_path.py walks lesson 3, in its own JupyterLab.

Open the notebook; a visible check fails before anything is written and so does Validate; type
every answer (lesson 3's code carried over included) and the four written answers, run
everything, watch every check pass and both incident replays render (the incident's reconcile
sends twice, the student's once); Validate passes; then hand the saved notebook in without a Hub,
collect it with zip_collect, grade it and open its Chinese feedback page. Screenshots go to
test-artifacts/browser/lesson04/.
"""
import json

import nbformat
import pytest
from playwright.sync_api import expect

from autograder.lessons import lesson
from student import StudentNotebook, check_incident_replay, cjk_fonts, hand_in_and_grade, open_feedback, typed_answers

LESSON = "lesson04"  # the `lab` fixture serves release/lesson04
NOTEBOOK = f"{lesson(LESSON).notebook}.ipynb"
WRITTEN_ANSWERS = {
    "why_S2": "S2 崩溃在发信之后、outcome 写进台账之前。恢复时用悬空调用的 id 按键去问服务器：服务器说已送达，"
              "就把它的回答记成 outcome 并作为 tool_result 补上，不再发信，所以不会多发。",
    "why_S4": "S4 崩溃在写 intent 之前，这次调用从来没开始过，服务器上也没有。恢复时用同一把键执行一次，"
              "记下 intent 和 outcome，所以不会漏发。",
    "why_S5": "S5 有 intent 没有 outcome，服务器又连不上，没法知道信到没到。只能像第 3 课那样补一个 is_error 的结果，"
              "让模型稍后再查，不能重发。",
    "root_cause_why": "出事的 reconcile 看到 intent 没有 outcome 就当成没开始，换了一把新键重发，服务器认不出是同一次调用，"
                      "于是发了第二封。A 不是根因：outcome 丢了也只会让续跑去按键查询。",
}


@pytest.fixture(scope="module")
def notebook(page, lab, artifacts):
    (artifacts / LESSON).mkdir()
    student = StudentNotebook(page, lab, NOTEBOOK, artifacts / LESSON)
    student.open()
    yield student
    (artifacts / LESSON / "console.json").write_text(json.dumps(student.console, ensure_ascii=False, indent=1))


def test_student_works_through_lesson_4(notebook):
    answers = typed_answers(lesson(LESSON).source_notebook)
    solution_ids = notebook.grade_ids(lambda grade_id, cell: grade_id in answers)
    written_ids = notebook.grade_ids(lambda grade_id, cell: cell.cell_type == "markdown"
                                     and cell.metadata["nbgrader"].get("solution"))
    check_ids = notebook.grade_ids(lambda grade_id, cell: grade_id.startswith("test_"))
    assert set(written_ids) == set(WRITTEN_ANSWERS), "笔答题变了：更新 WRITTEN_ANSWERS"
    assert {"lesson3_code", "effects", "append_ledger", "execute_with_ledger", "reconcile"} <= set(solution_ids)

    # Before writing anything: the answer cell raises the stub's error, and its visible check fails.
    for step in ("imports", "effects", "test_effects"):
        notebook.run(step)
    assert "NotImplementedError" in notebook.traceback("effects")
    assert notebook.traceback("test_effects")
    notebook.screenshot("check-fails-before-the-answer", notebook.cell("test_effects"))
    dialog = notebook.validate()
    assert dialog.locator("#validation-message.validation-failed").count() == 1, dialog.inner_text()
    notebook.screenshot("validate-fails-before-the-answers")
    notebook.close_dialog()

    for grade_id in solution_ids:
        notebook.type_into(grade_id, answers[grade_id])
    for grade_id in written_ids:
        notebook.write_markdown(grade_id, WRITTEN_ANSWERS[grade_id])
    notebook.run_all()
    notebook.save()

    failing = [number for number in range(len(notebook.released_cells)) if notebook.traceback(number)]
    assert not failing, f"这些单元格报错了：{failing}\n{notebook.traceback(failing[0])}"
    for grade_id in check_ids:
        assert notebook.prompt(grade_id) not in ("[ ]:", "[*]:"), f"可见检查 {grade_id} 没有运行"
        assert "✓" in notebook.output_text(grade_id), f"{grade_id}：{notebook.output_text(grade_id)[-500:]}"
    notebook.screenshot("checks-pass", notebook.cell("test_reconcile"))
    saved = nbformat.read(str(notebook.path), as_version=4).cells
    for grade_id in solution_ids:
        assert saved[notebook.index(grade_id)].source.rstrip() == answers[grade_id]
    for grade_id in written_ids:
        assert saved[notebook.index(grade_id)].source == WRITTEN_ANSWERS[grade_id]
    check_incident_replay(notebook)
    heading = notebook.page.locator(".jp-Notebook .jp-RenderedMarkdown h1").first
    drawn = notebook.fonts_drawing_chinese(heading)
    assert cjk_fonts(drawn["fonts"]), f"「{drawn['text']}」没有用中文字体画出来：{drawn['fonts']}"

    dialog = notebook.validate()
    message = dialog.locator("#validation-message")
    assert "validation-success" in message.get_attribute("class"), dialog.inner_text()
    assert notebook.shown_text(message.locator("p").first) == "通过！notebook 里的检查全部通过。"
    notebook.screenshot("validate-passes")
    notebook.close_dialog()


def test_no_errors_in_the_browser_console(notebook):
    errors = notebook.console_errors()
    assert not errors, "浏览器控制台里有错误：\n" + "\n".join(f"{e['type']}: {e['text']} ({e['url']})" for e in errors)


def test_lesson_4_goes_in_by_handin_and_comes_back_as_chinese_feedback(notebook, tmp_path, artifacts):
    course, graded = hand_in_and_grade(notebook, tmp_path)
    assert graded.returncode == 0, f"{graded.stdout[-2000:]}\n{graded.stderr[-3000:]}"
    assert f"书面回答还有 {len(WRITTEN_ANSWERS)} 份待人工批改" in graded.stdout
    page = open_feedback(notebook, course, artifacts / LESSON / "feedback-zh-cn.png")
    expect(page.locator("h4").first).to_contain_text("（得分 25.0 / 30.0）")  # every automatic point; 5 to grade
    page.close()
