"""What a student does in JupyterLab, as Playwright steps: open the notebook, type into a
cell, run it, run everything, press Validate, and what they see afterwards; then the hand-in
without a Hub and the feedback page, for either lesson (the walks in test_student_path*.py).

Cells are found by their place in the released notebook: JupyterLab shows the cells in
file order, so the n-th `.jp-Cell` is the n-th cell of the file.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from PIL import Image
from playwright.sync_api import Locator, Page, expect

from autograder.notebook_code import definition_cells

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

SOLUTION_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*(\n|\Z)", re.MULTILINE)
TRACEBACK = "Traceback (most recent call last)"
CHECK_FAILED = "可见检查没有通过"  # how course.checks shows a failed visible check (no stack of frames)
CJK = re.compile(r"[\u4e00-\u9fff]")
# (Texts are read with textContent: innerText is empty for cells scrolled out of view.)
# JupyterLab shows [*] in the prompt of a cell that is queued or running.
KERNEL_DONE = """() => {
    const prompts = document.querySelectorAll('.jp-Notebook .jp-InputPrompt');
    const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
    return ![...prompts].some(prompt => prompt.textContent.includes('*'))
        && indicator !== null && indicator.dataset.status === 'idle';
}"""
# Marks the innermost element under `root` whose own text has a Chinese character,
# so the DevTools protocol can ask which font drew it.
MARK_CHINESE_TEXT = """(root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        if (/[\\u4e00-\\u9fff]/.test(node.data)) {
            node.parentElement.setAttribute('data-font-probe', '');
            node.parentElement.scrollIntoView({block: 'center'});  // text out of view is not laid out
            return node.data.trim();
        }
    }
    return null;
}"""


def typed_answer(solution_source: str) -> str:
    """A reference solution cell as a student types it: the code without nbgrader's markers."""
    return SOLUTION_MARKER.sub("", solution_source).rstrip()


def typed_answers(source_notebook: Path) -> dict:
    """grade_id -> the reference solution as a student would type it (from the lesson's source notebook)."""
    return {cell.metadata["nbgrader"]["grade_id"]: typed_answer(cell.source)
            for cell in definition_cells(source_notebook) if cell.metadata["nbgrader"].get("solution")}


def cjk_fonts(fonts: dict) -> dict:
    return {family: glyphs for family, glyphs in fonts.items() if "CJK" in family and glyphs > 0}


def check_incident_replay(notebook):
    """The replay with the incident's reconcile shows the duplicate email; with the student's, it holds."""
    cells = notebook.indexes_calling("replay_incident")
    assert len(cells) == 2, f"应该有两次事故回放（事故版和你的 reconcile），找到 {cells}"
    for number in cells:
        verdict = "incident-broken" if "incident_reconcile" in notebook.released_cells[number].source else "incident-ok"
        assert notebook.cell(number).locator(f".incident-replay.{verdict}").count() == 1, notebook.output_text(number)
    drawn = notebook.fonts_drawing_chinese(notebook.cell(cells[0]).locator(".incident-replay"))
    assert cjk_fonts(drawn["fonts"]), f"回放结果里的「{drawn['text']}」没有用中文字体：{drawn['fonts']}"
    return notebook.screenshot("incident-replay", *(notebook.cell(number) for number in cells))


def small_png(image: Image.Image, path: Path) -> None:
    """A screenshot as a 64-colour palette PNG (a few times smaller; text and UI stay sharp)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, optimize=True)


def hand_in_and_grade(notebook: "StudentNotebook", tmp_path: Path) -> tuple:
    """What the browser saved, through the hand-in path without a Hub: `lab.py handin` -> `nbgrader zip_collect`
    (make collect) -> make grade, in a new course folder; (the folder, make grade's run)."""
    assignment = notebook.path.parent.name
    course = tmp_path / "course"
    course.mkdir()
    for part in ("source", "release"):
        shutil.copytree(ROOT / part, course / part)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    archive = course / "downloaded" / assignment / "archive"
    archive.mkdir(parents=True)
    handed_in = subprocess.run([sys.executable, str(ROOT / "student_bundle" / "lab.py"), "handin", "--student", "s01",
                                "--notebook-dir", str(notebook.path.parent), "--out", str(archive)],
                               capture_output=True, text=True, timeout=60)
    assert handed_in.returncode == 0 and "打包好了" in handed_in.stdout, handed_in.stderr
    assert [p.name.startswith(f"{assignment}_s01_") for p in archive.iterdir()] == [True]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    collected = subprocess.run([str(BIN / "nbgrader"), "zip_collect", assignment, "--force"], cwd=course, env=env,
                               capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0, collected.stderr[-3000:]
    assert (course / "submitted" / "s01" / assignment / notebook.name).read_bytes() == notebook.path.read_bytes()
    graded = subprocess.run([str(BIN / "python"), "-m", "autograder.classgrade", "--workers", "2", "--no-progress"],
                            cwd=course, env=env, capture_output=True, text=True, timeout=900)
    return course, graded


def open_feedback(notebook: "StudentNotebook", course: Path, shot: Path) -> Page:
    """The student's feedback page, opened in a new tab of the browser: its labels are Chinese. A screenshot
    goes to `shot`; the page is left open for more checks."""
    assignment = notebook.path.parent.name
    page = notebook.page.context.new_page()
    page.goto((course / "feedback" / "s01" / assignment / notebook.name.replace(".ipynb", ".html")).as_uri())
    expect(page.locator("span.nbgrader-label", has_text="你的答案").first).to_be_visible()
    assert "Student's answer" not in page.content() and "Test cell" not in page.content()
    page.screenshot(path=str(shot))
    return page


class StudentNotebook:
    def __init__(self, page: Page, lab: dict, notebook_name: str, artifacts: Path):
        self.page, self.lab, self.name, self.artifacts = page, lab, notebook_name, artifacts
        self.path = lab["dir"] / notebook_name
        self.released_cells = nbformat.read(str(self.path), as_version=4).cells
        self.console = []  # every console message and uncaught page error, in order
        self.screenshots = []
        page.on("console", lambda message: self.console.append(
            {"type": message.type, "text": message.text, "url": message.location.get("url", "")}))
        page.on("pageerror", lambda error: self.console.append({"type": "pageerror", "text": str(error), "url": ""}))

    # --- finding cells -------------------------------------------------------------
    def index(self, grade_id: str) -> int:
        for number, cell in enumerate(self.released_cells):
            if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
                return number
        raise LookupError(f"发布版 notebook 里没有 grade_id 为 {grade_id} 的单元格")

    def grade_ids(self, predicate) -> list:
        """grade_ids of the cells for which predicate(grade_id, cell) holds, in notebook order."""
        return [cell.metadata["nbgrader"]["grade_id"] for cell in self.released_cells
                if "grade_id" in cell.metadata.get("nbgrader", {})
                and predicate(cell.metadata["nbgrader"]["grade_id"], cell)]

    def indexes_calling(self, function_name: str) -> list:
        """Code cells that call `function_name(` — how the lesson shows a widget."""
        call = re.compile(rf"(?<![\w.]){re.escape(function_name)}\(")
        return [number for number, cell in enumerate(self.released_cells)
                if cell.cell_type == "code" and call.search(cell.source)
                and not re.search(rf"def {re.escape(function_name)}\(", cell.source)]

    def cell(self, where) -> Locator:
        number = where if isinstance(where, int) else self.index(where)
        return self.page.locator(".jp-Notebook .jp-Cell").nth(number)

    # --- what a student does -----------------------------------------------------------
    def open(self) -> None:
        self.page.goto(f"{self.lab['url']}/lab/tree/{self.name}?token={self.lab['token']}&reset")
        cells = self.page.locator(".jp-Notebook .jp-Cell")
        cells.nth(len(self.released_cells) - 1).wait_for(state="attached", timeout=60_000)
        assert cells.count() == len(self.released_cells)
        self.wait_for_kernel(timeout=60_000)

    def type_into(self, where, code: str) -> None:
        """Click into the cell's editor, select everything, and type `code` in its place."""
        editor = self.cell(where).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.insert_text(code)
        self.page.keyboard.press("Escape")

    def write_markdown(self, where, text: str) -> None:
        """Open a markdown cell for editing (Enter), type `text` over it, render it (Ctrl+Enter)."""
        prompt = self.cell(where).locator(".jp-InputPrompt")
        prompt.scroll_into_view_if_needed()
        prompt.click()
        self.page.keyboard.press("Enter")
        self.cell(where).locator(".cm-content").wait_for()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.insert_text(text)
        self.page.keyboard.press("Control+Enter")
        self.cell(where).locator(".jp-RenderedMarkdown").wait_for()

    def run(self, where, timeout: float = 60_000) -> None:
        """Select the cell and press Ctrl+Enter (run it, stay on it)."""
        prompt = self.cell(where).locator(".jp-InputPrompt")
        prompt.scroll_into_view_if_needed()
        before = prompt.text_content()
        prompt.click()
        self.page.keyboard.press("Control+Enter")
        self.page.wait_for_function(
            "([prompt, before]) => /\\[\\d+\\]/.test(prompt.textContent) && prompt.textContent !== before",
            arg=[prompt.element_handle(), before], timeout=timeout)
        self.wait_for_kernel(timeout)

    def run_all(self, timeout: float = 120_000) -> None:
        """运行 ▸ 运行所有单元格 (Run ▸ Run All Cells), from the menu bar of the zh-CN lab."""
        self.page.get_by_role("menuitem", name="运行", exact=True).click()
        self.page.get_by_role("menuitem", name="运行所有单元格", exact=True).click()
        self.page.wait_for_timeout(500)  # the kernel takes the queue before the prompts all say [*]
        self.wait_for_kernel(timeout)

    def wait_for_kernel(self, timeout: float = 60_000) -> None:
        self.page.wait_for_function(KERNEL_DONE, timeout=timeout)

    def save(self) -> None:
        self.page.keyboard.press("Control+s")
        self.page.locator(".jp-Notebook").first.wait_for()
        self.page.wait_for_function(
            "() => !document.querySelector('.jp-DocumentWidget .jp-mod-dirty, .lm-TabBar-tab.jp-mod-dirty')")

    def validate(self, timeout: float = 180_000) -> Locator:
        """Press nbgrader's Validate button; return the result dialog (left open)."""
        self.page.locator(".validate-button").click()
        dialog = self.page.locator(".jp-Dialog").filter(has=self.page.locator("#validation-message"))
        dialog.wait_for(timeout=timeout)
        return dialog

    def shown_text(self, locator: Locator) -> str:
        """What the page shows for an element whose words custom.css replaces: its ::before content."""
        content, size = locator.evaluate("e => [getComputedStyle(e, '::before').content,"
                                         " parseFloat(getComputedStyle(e, '::before').fontSize)]")
        return json.loads(content) if content.startswith('"') and size > 0 else ""  # a 0 px text shows nothing

    def close_dialog(self) -> None:
        self.page.locator(".jp-Dialog .jp-mod-accept").click()
        self.page.locator(".jp-Dialog").wait_for(state="detached")

    # --- what a student sees -------------------------------------------------------------
    def prompt(self, where) -> str:
        return self.cell(where).locator(".jp-InputPrompt").text_content().strip()

    def output_text(self, where) -> str:
        outputs = self.cell(where).locator(".jp-OutputArea-output")
        return "\n".join(outputs.all_text_contents())

    def traceback(self, where) -> str:
        """The error a cell shows ('' when it shows none)."""
        for text in self.cell(where).locator(".jp-OutputArea-output").all_text_contents():
            if TRACEBACK in text or CHECK_FAILED in text:
                return text
        return ""

    def fonts_drawing_chinese(self, root: Locator) -> dict:
        """Which platform fonts Chromium used for the first Chinese text under `root`.

        Returns {"text": ..., "fonts": {family: glyph count}}; a missing CJK font shows up
        as a fallback family that has no Chinese glyphs (the "tofu" boxes).
        """
        self.page.evaluate("() => document.querySelectorAll('[data-font-probe]')"
                           ".forEach(element => element.removeAttribute('data-font-probe'))")
        text = root.evaluate(MARK_CHINESE_TEXT)
        assert text, "这里没有中文文字"
        self.page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        devtools = self.page.context.new_cdp_session(self.page)
        try:
            devtools.send("DOM.enable")
            devtools.send("CSS.enable")
            document = devtools.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
            node = devtools.send("DOM.querySelector", {"nodeId": document, "selector": "[data-font-probe]"})["nodeId"]
            fonts = devtools.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        finally:
            devtools.detach()
        return {"text": text, "fonts": {font["familyName"]: font["glyphCount"] for font in fonts}}

    def screenshot(self, name: str, *elements: Locator) -> Path:
        """Save a numbered screenshot of the page (or of the area the elements cover) as a test artifact."""
        path = self.artifacts / f"{len(self.screenshots) + 1:02d}-{name}.png"
        if elements:
            self._area_screenshot(elements, path)
        else:
            self.page.screenshot(path=str(path))
        self.screenshots.append(path)
        return path

    def _area_screenshot(self, elements: tuple, path: Path) -> None:
        # An area taller than the window would be cut off: make the window tall enough for it.
        viewport = self.page.viewport_size
        elements[0].scroll_into_view_if_needed()
        boxes = [element.bounding_box() for element in elements]
        top, bottom = min(box["y"] for box in boxes), max(box["y"] + box["height"] for box in boxes)
        if bottom - top + 200 > viewport["height"]:
            self.page.set_viewport_size({"width": viewport["width"], "height": min(int(bottom - top) + 200, 4000)})
        try:
            elements[0].evaluate("element => element.scrollIntoView({block: 'start'})")
            boxes = [element.bounding_box() for element in elements]
            left, top = min(box["x"] for box in boxes), min(box["y"] for box in boxes)
            right = max(box["x"] + box["width"] for box in boxes)
            bottom = max(box["y"] + box["height"] for box in boxes)
            self.page.screenshot(path=str(path), clip={"x": left, "y": top, "width": right - left, "height": bottom - top})
        finally:
            self.page.set_viewport_size(viewport)

    def console_errors(self) -> list:
        return [entry for entry in self.console if entry["type"] in ("error", "pageerror")]
