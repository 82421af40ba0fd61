"""Run code in a real ipykernel after the lesson's definitions, as a notebook cell would run it.

The setup and reference-solution cells of the source notebook come first, so the lesson's
functions live in the kernel's __main__ (what fork() inside ipykernel must cope with).
"""
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.notebook_code import SOURCE_NOTEBOOK, definition_cells


def run_after_the_definitions(sources: list, folder: Path, timeout: int) -> list:
    """Execute `sources` as code cells after the lesson's definitions, in `folder`; return those cells."""
    cells = [nbformat.v4.new_code_cell(cell.source) for cell in definition_cells(SOURCE_NOTEBOOK)]
    cells += [nbformat.v4.new_code_cell(source) for source in sources]
    notebook = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    return notebook.cells[-len(sources):]
