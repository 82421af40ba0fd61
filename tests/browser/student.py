"""What a student does in JupyterLab, as Playwright steps: open the notebook, type into a
cell, run it, run everything, press Validate, and what they see afterwards.

Cells are found by their place in the released notebook: JupyterLab shows the cells in
file order, so the n-th `.jp-Cell` is the n-th cell of the file.
"""
import json
import re
from pathlib import Path

import nbformat
from playwright.sync_api import Locator, Page

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
