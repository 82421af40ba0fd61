"""autograder.feedback_page: the same feedback pages as nbconvert's HTMLExporter, made with less work."""
import base64
from pathlib import Path

import nbformat
import nbgrader
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_output
from traitlets.config import Config

from autograder.feedback_page import COMPILED_TEMPLATES, RENDERED_CELLS, TEMPLATE_NAME, TEMPLATES, FeedbackExporter
from autograder.notebook_code import RELEASE_NOTEBOOK

PIXEL = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")).decode()


def export(exporter_class, notebook) -> str:
    config = Config()
    config.HTMLExporter.template_name = "classic"  # what nbgrader's feedback template extends
    html, _ = exporter_class(config=config).from_notebook_node(notebook)
    return html


def tree(html: str) -> str:
    return str(BeautifulSoup(html, "html.parser"))


def test_the_lesson_gives_the_same_page_as_nbconverts_exporter():
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    theirs = tree(export(HTMLExporter, notebook))
    first, second = export(FeedbackExporter, notebook), export(FeedbackExporter, notebook)  # then from memory
    assert "loop.svg" in first  # the lesson's picture, with its alt text: no parse needed
    assert tree(first) == theirs and tree(second) == theirs


def test_a_cell_that_differs_is_rendered_anew():
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    export(FeedbackExporter, notebook)
    markdown = next(c for c in notebook.cells if c.cell_type == "markdown")
    code = next(c for c in notebook.cells if c.cell_type == "code" and c.source.strip())
    markdown.source += "\n\n另一位同学的**回答**"
    code.source += "\nanother_students_name = 1"
    ours = export(FeedbackExporter, notebook)
    assert "另一位同学的<strong>回答</strong>" in ours and "another_students_name" in ours
    assert tree(ours) == tree(export(HTMLExporter, notebook))


def test_an_image_without_alt_text_gets_nbconverts_default():
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    plot = new_code_cell("plot()", outputs=[new_output("display_data", data={"image/png": PIXEL})])
    notebook.cells.append(plot)
    ours = export(FeedbackExporter, notebook)
    assert ours == export(HTMLExporter, notebook)
    assert "No description has been provided for this image" in ours


def export_from(folder: Path, notebook, embed_images: bool) -> str:
    config = Config()
    config.HTMLExporter.template_name = "classic"
    config.HTMLExporter.embed_images = embed_images
    return FeedbackExporter(config=config).from_notebook_node(notebook, {"metadata": {"path": str(folder)}})[0]


def test_markdown_is_rendered_once_for_the_class_unless_images_are_read_from_each_folder(tmp_path):
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell("![图](pic.png)"))
    for student, pixel in (("a", PIXEL), ("b", base64.b64encode(b"\x89PNG other").decode())):
        (tmp_path / student).mkdir()
        (tmp_path / student / "pic.png").write_bytes(base64.b64decode(pixel))
    export_from(tmp_path / "a", notebook, embed_images=False)
    remembered = len(RENDERED_CELLS)
    export_from(tmp_path / "b", notebook, embed_images=False)  # another student's folder: the same HTML
    assert len(RENDERED_CELLS) == remembered
    for student, pixel in (("a", PIXEL), ("b", base64.b64encode(b"\x89PNG other").decode())):
        assert f"data:image/png;base64,{pixel}" in export_from(tmp_path / student, notebook, embed_images=True)


def test_templates_are_compiled_once_per_process():
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    export(FeedbackExporter, notebook)
    compiled = dict(COMPILED_TEMPLATES.compiled)
    assert compiled, "the first page compiles the templates into the cache"
    dumped = []
    original = COMPILED_TEMPLATES.dump_bytecode
    COMPILED_TEMPLATES.dump_bytecode = lambda bucket: dumped.append(bucket.key) or original(bucket)
    try:
        export(FeedbackExporter, notebook)  # a new exporter, a new Jinja environment
    finally:
        del COMPILED_TEMPLATES.dump_bytecode
    assert dumped == [] and COMPILED_TEMPLATES.compiled == compiled


BOOTSTRAP_CSS = (Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "static" / "node_modules"
                 / "bootstrap" / "dist" / "css")
ENGLISH_LABELS = ("Student's answer", "Test cell", "Written response", "Comment", "Score", "(Top)", "Grade cell")


def test_the_feedback_page_speaks_chinese_and_loads_nothing_from_the_network():
    """The course's feedback template (nbgrader_config.py), on the lesson with scores and a grader's comment."""
    notebook = nbformat.read(str(RELEASE_NOTEBOOK), as_version=4)
    written = next(c for c in notebook.cells if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution"))
    for cell in notebook.cells:
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("grade"):
            grading["score"] = grading["points"]
    written.metadata["nbgrader"]["comment"] = "说到了要点，再写写存档点 B。"
    config = Config()
    config.FeedbackExporter.template_name = TEMPLATE_NAME
    config.FeedbackExporter.extra_template_basedirs = [str(TEMPLATES)]
    config.HTMLExporter.extra_template_paths = [str(BOOTSTRAP_CSS)]  # as nbgrader's GenerateFeedback sets it
    resources = {"nbgrader": {"notebook": "resume-from-checkpoint", "score": 28, "max_score": 28, "late_penalty": 0}}
    html, _ = FeedbackExporter(config=config).from_notebook_node(notebook, resources=resources)
    page = BeautifulSoup(html, "html.parser")
    labels = {span.get_text() for span in page.select("span.nbgrader-label")}
    assert "你的答案" in labels and any(label.startswith("评分检查") for label in labels), labels
    toc = page.select_one("#toc").get_text()
    assert "书面回答" in toc and "评分检查" in toc and "评语" in toc and "（得分 28.0 / 28.0）" in page.h4.get_text()
    assert "评语：" in html and "说到了要点" in html
    shown = page.select_one("#toc").get_text() + " ".join(labels) + page.h4.get_text()
    assert not [label for label in ENGLISH_LABELS if label in shown]
    assert page.html["lang"] == "zh-CN"
    remote = [tag for tag in page.find_all(["script", "link"]) if (tag.get("src") or tag.get("href") or "").startswith("http")]
    assert remote == []
