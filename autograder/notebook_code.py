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
import copy
import importlib.util
import os
import sys
import types
from pathlib import Path

import nbformat

from .lessons import DEFAULT, Lesson

ROOT = Path(__file__).resolve().parent.parent
SOURCE_NOTEBOOK = DEFAULT.source_notebook
RELEASE_NOTEBOOK = DEFAULT.release_notebook


DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
TRY_NODES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))  # TryStar: 3.11+
# Modules a demo cell's import may name inside the sandbox: the standard library and the course runtime
# (the notebook's widgets and replay live outside it, and a solution has no use for them).
SANDBOX_MODULES = frozenset(sys.stdlib_module_names) | {"course", "anthropic", "httpx2"}


def installed_modules_in_use(sources) -> frozenset:
    """Top-level modules outside SANDBOX_MODULES that the sandbox can import too (installed with the interpreter,
    whose folders it binds; not the user's own site-packages nor the course folder) and that code which may run in
    a step uses: a name the import binds appears in a function or class, or at the top of `sources`' answer cells
    (`sources`: (source, is_answer) pairs). An experiment's top-level `plt.plot(...)` needs none: it is left out."""
    imported, used = {}, set()
    for source, is_answer in sources:
        try:
            tree = ast.parse(python_source(source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    imported.setdefault(alias.asname or alias.name.split(".")[0], set()).add(alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    imported.setdefault(alias.asname or alias.name, set()).add(node.module.split(".")[0])
        for part in [tree] if is_answer else [n for n in ast.walk(tree) if isinstance(n, DEFINITIONS)]:
            used.update(n.id for n in ast.walk(part) if isinstance(n, ast.Name))
    wanted = {module for name in used & imported.keys() for module in imported[name]} - SANDBOX_MODULES
    return frozenset(module for module in wanted if _installed(module))


def _installed(module: str) -> bool:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    where = spec and (spec.origin or next(iter(spec.submodule_search_locations or ()), None))
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return bool(where) and any(where.startswith(prefix + os.sep) for prefix in prefixes)


def demo_definitions(source: str, changed: frozenset = frozenset()) -> str:
    """What a demo cell defines without doing anything: imports, functions, classes, constants, and the values
    the course's own functions build without an effect (the notebook's `client = make_client()`, a sample).

    An assignment is kept only when its value is a literal or such a value, so defining never creates a file or
    a folder, never runs the lesson's functions, and never needs what a demo computed; and only when none of its
    names is in `changed`: names the notebook's demos change in a way the grader leaves out (`names_changed`),
    which the grader would hold differently from the notebook.
    """
    return kept_definitions(source, demo_value, changed)


def demo_value(value) -> bool:
    """A value a demo cell's assignment may keep: a literal, or one the course's functions build (VALUE_BUILDERS)."""
    return _is_literal(value) or _built_by_the_course(value)


def names_changed(source: str, keeps_value=lambda value: False) -> set:
    """The names a cell's top-level statements change other than by an assignment whose value `keeps_value`
    accepts: rebound in a loop or a with, by `+=`, by another assignment, or changed through an attribute or an
    item (`crashing_client.messages.create = ...`)."""
    try:
        tree = ast.parse(python_source(source))
    except SyntaxError:
        return set()
    changed, pending = set(), list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (*DEFINITIONS, ast.Lambda)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and keeps_value(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            changed |= {name for target in targets for name in changed_through(target)}
            pending.append(node.value)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed |= changed_through(node)
        pending.extend(ast.iter_child_nodes(node))
    return changed


def changed_through(target) -> set:
    """The name an attribute or item assignment changes (`a.b[0] = ...` changes a); none for a plain name."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in changed_through(element)}
    if isinstance(target, ast.Starred):
        return changed_through(target.value)
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
        if isinstance(target, ast.Name):
            return {target.id}
    return set()


# The course's functions that only build a value: calling one at definition time changes nothing outside the
# process (an offline client, a bundled sample checkpoint, the request parameters).
VALUE_BUILDERS = frozenset({"make_client", "load_sample", "request_params"})
_BUILT_VALUE_NODES = (ast.Call, ast.Name, ast.Constant, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.Dict,
                      ast.keyword, ast.Load, ast.UnaryOp, ast.USub)


def _built_by_the_course(value) -> bool:
    """`value` calls only VALUE_BUILDERS, on literals: it needs nothing a demo computed."""
    nodes = list(ast.walk(value))
    return (any(isinstance(node, ast.Call) for node in nodes)
            and all(isinstance(node, _BUILT_VALUE_NODES) for node in nodes)
            and all(node.id in VALUE_BUILDERS for node in nodes if isinstance(node, ast.Name))
            and all(isinstance(node.func, ast.Name) for node in nodes if isinstance(node, ast.Call)))


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


def kept_definitions(source: str, keeps_value, leaves_out=frozenset(), modules=SANDBOX_MODULES) -> str:
    """A cell's functions, classes, imports of modules the sandbox has (another would only raise there),
    and the statements whose expressions `keeps_value(expression)` accepts: assignments, calls and `+=` (a table
    filled by `ACTIONS.update(...)`), which is how the notebook gives its names their values; nothing else it does.

    A top-level `if`, `try`, `for` or `with` is kept with what its blocks define, filtered the same way (a helper
    defined one way on Windows and another elsewhere, `try: sync = os.fdatasync except AttributeError: ...`, a table
    filled in a loop), when its test, iterable or context passes `keeps_value` too; the statements of a block that
    do something are left out of it. A `while` is kept only whole. An assignment to a name in `leaves_out` is left
    out too. An import is kept when every module it names is in `modules` (top-level names)."""
    source = python_source(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    lines = source.splitlines()
    kept = []
    for node in tree.body:
        definition = _definition(node, keeps_value, leaves_out, modules)
        if definition is node:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            kept.append("\n".join(lines[first - 1:node.end_lineno]))
        elif definition is not None:  # an if or try some of whose statements were left out
            kept.append(ast.unparse(definition))
    return "\n\n".join(kept)


def _definition(node, keeps_value, leaves_out=frozenset(), modules=SANDBOX_MODULES):
    """`node` when it only defines, a copy of an if or try holding only its definitions, or None."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(n, ast.Name) and n.id in leaves_out for target in targets for n in ast.walk(target)):
            return None
        return node if node.value is not None and keeps_value(node.value) else None
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        named = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        if getattr(node, "level", 0) or any(name.split(".")[0] not in modules for name in named):
            return None
        return node
    if isinstance(node, (*DEFINITIONS, ast.Break, ast.Continue)):
        return node
    if isinstance(node, (ast.Expr, ast.AugAssign)):  # ACTIONS.update(...), setattr(...), COUNT += 1
        calls = isinstance(node, ast.AugAssign) or any(isinstance(part, ast.Call) for part in ast.walk(node.value))
        return node if calls and keeps_value(node.value) else None  # a bare `matrix` only shows a value
    if isinstance(node, ast.While):  # kept whole or not at all: without a statement of its body it may never end
        return node if keeps_value(node.test) and all(_definition(child, keeps_value, leaves_out, modules) is child
                                                      for child in node.body + node.orelse) else None
    if isinstance(node, (ast.If, ast.For, ast.With)):
        header = [node.test] if isinstance(node, ast.If) else [node.iter] if isinstance(node, ast.For) else [
            item.context_expr for item in node.items]
        if not all(keeps_value(expression) for expression in header):
            return None
        blocks = {"body": node.body, **({"orelse": node.orelse} if hasattr(node, "orelse") else {})}
    elif isinstance(node, TRY_NODES):
        if not all(handler.type is None or _names_only(handler.type) for handler in node.handlers):
            return None
        blocks = {"body": node.body, "orelse": node.orelse, "finalbody": node.finalbody}
        blocks.update({("handler", i): handler.body for i, handler in enumerate(node.handlers)})
    else:
        return None
    filtered = {key: [kept for kept in (_definition(child, keeps_value, leaves_out, modules) or _filler(child)
                                        for child in block) if kept is not None] for key, block in blocks.items()}
    if all(_filler(kept) for block in filtered.values() for kept in block):
        return None
    if all(len(filtered[key]) == len(block) and all(a is b for a, b in zip(filtered[key], block))
           for key, block in blocks.items()):
        return node
    copied = copy.copy(node)
    for key, block in filtered.items():
        if isinstance(key, tuple):
            copied.handlers = list(copied.handlers)
            copied.handlers[key[1]] = copy.copy(copied.handlers[key[1]])
            copied.handlers[key[1]].body = block or [ast.Pass()]
        else:
            setattr(copied, key, block or ([ast.Pass()] if blocks[key] and key != "orelse" else []))
    return copied


def _filler(node):
    """`pass`, `...` or a docstring: a statement that does nothing."""
    return node if isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) \
        else None


def _names_only(expression) -> bool:
    """An except clause's exception types: names, attributes and tuples of them, which run nothing."""
    return all(isinstance(node, (ast.Name, ast.Attribute, ast.Tuple, ast.Load)) for node in ast.walk(expression))


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
