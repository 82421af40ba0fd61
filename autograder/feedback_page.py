"""The HTML exporter behind `nbgrader generate_feedback`, without the costs that repeat for every student.

nbconvert's HTMLExporter spends most of a feedback page's time on work that does not
change the page here:
  - it compiles nbgrader's feedback templates again for every student (every
    generate_feedback call makes a new exporter with a new Jinja environment): the
    compiled templates are kept in memory instead (Jinja's own bytecode cache);
  - it highlights and renders every cell again for every student, though most cells
    are the lesson's own and the same for the whole class: the HTML of a code or
    markdown cell is remembered by everything it is made from (source, language,
    metadata, the exporter's options), so a cell that differs is rendered anew;
  - after rendering it parses the whole page with BeautifulSoup, only to give `<img>`
    tags without alt text a default one and to make JupyterLab-template cells
    focusable. nbgrader's feedback template is the classic one, and the lesson's images
    carry alt text, so the parse is skipped when the page has neither; otherwise the
    page is exported by HTMLExporter itself, unchanged.

nbgrader_config.py makes it `GenerateFeedback.exporter_class`, so `make grade`, the
serial grader and plain `nbgrader generate_feedback` write the same pages, and gives it the
template in templates/feedback_zh/: nbgrader's feedback template with its words in Chinese
("你的答案", "评分检查", "书面回答", "评语", "得分") and no MathJax from a CDN. Its labels are
written in the template's macros, which a template extending nbgrader's cannot replace, so it
is nbgrader 0.9.6's template translated, not an extension of it.
"""
import json
import re
from pathlib import Path

import jinja2
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE_NAME = "feedback_zh"

# An <img ...> whose attributes do not include alt=, or a JupyterLab-template cell: what the parse would change.
NEEDS_SOUP = re.compile(r"<img\b(?![^>]*\salt=)[^>]*>|jp-Notebook", re.IGNORECASE)


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept for the life of the process; Jinja's key covers the template's source."""

    def __init__(self):
        self.compiled = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket):
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = _CompiledTemplates()
RENDERED_CELLS = {}  # (kind, what the HTML is made from) -> HTML, for the life of the process
MAX_RENDERED_CELLS = 5000  # a few MB; a class whose answers are all different starts over when it is full


def remembered(key: tuple, render) -> str:
    if key not in RENDERED_CELLS:
        if len(RENDERED_CELLS) >= MAX_RENDERED_CELLS:
            RENDERED_CELLS.clear()
        RENDERED_CELLS[key] = render()
    return RENDERED_CELLS[key]


def _as_key(value) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


class _RememberedHighlight(Highlight2HTML):
    def __call__(self, source, language=None, metadata=None):
        key = ("code", source, language or self.pygments_lexer, _as_key(metadata), _as_key(self.extra_formatter_options))
        return remembered(key, lambda: super(_RememberedHighlight, self).__call__(source, language, metadata))


class FeedbackExporter(HTMLExporter):
    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED_TEMPLATES
        return environment

    @jinja2.pass_context  # as in HTMLExporter: Jinja hands the filter the cell being rendered
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        # the notebook's folder (each student's own) matters only to images read from it
        path = context.get("resources", {}).get("metadata", {}).get("path", "") if self.embed_images else ""
        key = ("markdown", source, _as_key(cell.get("attachments", {})), path, self.embed_images,
               self.anchor_link_text, self.exclude_anchor_links, _as_key(self.lexer_options))
        return remembered(key, lambda: super(FeedbackExporter, self).markdown2html(context, source))

    def from_notebook_node(self, nb, resources=None, **kw):
        # HTMLExporter.from_notebook_node without its BeautifulSoup pass (nbconvert 7.17): the same filters.
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name", None))
        resources = self._init_resources(resources)
        self.register_filter("highlight_code", self.filters.get(
            "highlight_code", _RememberedHighlight(pygments_lexer=lexer, parent=self)))
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        if NEEDS_SOUP.search(html):
            return super().from_notebook_node(nb, resources, **kw)
        return html, resources
