"""Take the definitions out of a lesson notebook and load them as a module.

A notebook's definitions are its `setup` cells (locked code the course gives:
imports, constants, the incident's reconcile) and its solution cells (what the
student writes), in notebook order. Demo cells and checks are left out, so
loading never runs an agent or prints anything. What the demo cells define for
the rest of the notebook (a helper such as `describe()`, a class, an import, a
constant) is another matter: a solution may use it, and it works in the student's
notebook, so the grader defines it too (`demo_definitions`), without running the
demo itself.

The reference solution is the source notebook itself: `load_reference()` is
the one way tests, the replay and the grader reach it, and `full_marks_notebook()`
hands it in as a student would (for the grading corpus and the grading benchmark).
"""
import ast
import sys
import types
from pathlib import Path

import nbformat

from .lessons import DEFAULT, Lesson

ROOT = Path(__file__).resolve().parent.parent
SOURCE_NOTEBOOK = DEFAULT.source_notebook
RELEASE_NOTEBOOK = DEFAULT.release_notebook


# Modules a demo cell's import may name inside the sandbox: the standard library and the course runtime
# (the notebook's widgets and replay live outside it, and a solution has no use for them).
SANDBOX_MODULES = frozenset(sys.stdlib_module_names) | {"course", "anthropic", "httpx2"}


def demo_definitions(source: str) -> str:
    """What a demo cell defines without doing anything: imports, functions, classes, constants.

    An assignment is kept only when its value is a literal, so defining never creates a client, a
    file or a folder, never runs the lesson's functions, and never needs what a demo computed.
    """
    return kept_definitions(source, lambda node: _is_literal(node.value))


def python_source(source: str) -> str:
    """A cell as the kernel runs it: itself when it is Python, else with its IPython syntax (`%time`, `%%capture`,
    `!pip ...`, `name?`) turned into calls of `get_ipython()`, by IPython's own transformer. A cell that is not
    Python either way stays as written, so that its SyntaxError is the one the notebook shows; so does a cell with
    a null byte, which the kernel does not run either."""
    if "\0" in source or _compiles(source):
        return source
    from IPython.core.inputtransformer2 import TransformerManager  # only for the rare cell that needs it

    transformed = TransformerManager().transform_cell(source)
    return transformed if _compiles(transformed) else source


def _compiles(source: str) -> bool:
    try:
        compile(source, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def kept_definitions(source: str, keeps_assignment) -> str:
    """A cell's functions, classes, imports of modules the sandbox has (another would only raise there),
    and the assignments `keeps_assignment(node)` accepts; nothing it does at the top level."""
    source = python_source(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    lines = source.splitlines()
    kept = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            if not keeps_assignment(node):
                continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if getattr(node, "level", 0) or any(name.split(".")[0] not in SANDBOX_MODULES for name in modules):
                continue
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        kept.append("\n".join(lines[first - 1:node.end_lineno]))
    return "\n\n".join(kept)


def _is_literal(value) -> bool:
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return value is not None


def is_demo_cell(cell) -> bool:
    """A code cell of the source notebook that is neither a definition nor a check."""
    return cell.cell_type == "code" and not cell.metadata.get("nbgrader") and "setup" not in cell.metadata.get("tags", [])


def is_definition_cell(cell) -> bool:
    grading = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and (grading.get("solution") or "setup" in cell.metadata.get("tags", []))


def definition_cells(notebook_path: Path) -> list:
    notebook = nbformat.read(str(notebook_path), as_version=4)
    return [cell for cell in notebook.cells if is_definition_cell(cell)]


def load_module(code_cells: list, name: str) -> types.ModuleType:
    """Run the cells' code in a fresh module namespace and return the module."""
    module = types.ModuleType(name)
    for number, cell in enumerate(code_cells):
        exec(compile(cell.source, f"<{name} cell {number}>", "exec"), module.__dict__)
    return module


def load_reference(lesson: Lesson = DEFAULT) -> types.ModuleType:
    return load_module(definition_cells(lesson.source_notebook), f"reference_{lesson.assignment}")


def reference_solutions(lesson: Lesson = DEFAULT) -> dict:
    """grade_id -> the reference source of each answer (solution code) cell."""
    notebook = nbformat.read(str(lesson.source_notebook), as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in notebook.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}


def full_marks_notebook(lesson: Lesson = DEFAULT) -> nbformat.NotebookNode:
    """The student notebook (release/) with every answer cell holding the reference solution."""
    notebook = nbformat.read(str(lesson.release_notebook), as_version=4)
    solutions = reference_solutions(lesson)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in solutions:
            cell.source = solutions[grade_id]
    return notebook
