"""The HTML exporter behind `nbgrader generate_feedback`, with two costs of a class-sized run removed.

nbconvert's HTMLExporter spends most of a feedback page's time on work that does not
change the page here:
  - it compiles nbgrader's feedback templates again for every student (every
    generate_feedback call makes a new exporter with a new Jinja environment): the
    compiled templates are kept in memory instead (Jinja's own bytecode cache);
  - after rendering it parses the whole page with BeautifulSoup, only to give `<img>`
    tags without alt text a default one and to make JupyterLab-template cells
    focusable. nbgrader's feedback template is the classic one, and the lesson's images
    carry alt text, so the parse is skipped when the page has neither; otherwise the
    page is exported by HTMLExporter itself, unchanged.

nbgrader_config.py makes it `GenerateFeedback.exporter_class`, so `make grade`, the
serial grader and plain `nbgrader generate_feedback` write the same pages.
"""
import re

import jinja2
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

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


class FeedbackExporter(HTMLExporter):
    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED_TEMPLATES
        return environment

    def from_notebook_node(self, nb, resources=None, **kw):
        # HTMLExporter.from_notebook_node without its BeautifulSoup pass (nbconvert 7.17): the same filters.
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name", None))
        resources = self._init_resources(resources)
        self.register_filter("highlight_code",
                             self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        if NEEDS_SOUP.search(html):
            return super().from_notebook_node(nb, resources, **kw)
        return html, resources
