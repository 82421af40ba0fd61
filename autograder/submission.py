"""Read a submitted notebook, whatever state it is in, into the code the grader runs.

The grader runs the student's solution cells (found by nbgrader `grade_id`) and the
definitions from code cells the student added, but never a locked cell from the
submission: the `setup` cells always come from the course's source notebook, so an
edited import cell or a rewritten `incident_reconcile` changes nothing.

A damaged file still earns what it can: JSON with small syntax errors is repaired
with json5, a duplicated cell counts once (the last copy, as nbgrader keeps it), a
deleted cell costs only the checks that need it. Every such finding becomes a note in
Chinese for the student's feedback.
"""
import ast
import builtins
import collections
import copy
import json
import re
import symtable
from dataclasses import dataclass, field
from pathlib import Path

import json5
import nbformat

from .notebook_code import (SANDBOX_MODULES, SOURCE_NOTEBOOK, changed_through, demo_definitions, demo_value,
                            installed_modules_in_use, is_definition_cell, is_demo_cell, kept_definitions, names_changed,
                            python_source, reference_solutions)

NOTES_KEY = "autograder_notes"  # notebook metadata where the pre-check leaves its notes for the judge


@dataclass
class Submission:
    code: dict = field(default_factory=dict)  # grade_id -> the student's source, for solution code cells
    # (after_grade_id, source, number): definitions from the number-th code cell the student added after that cell
    extra: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # what was wrong with the file, in Chinese
    history: list = field(default_factory=list)  # the notebook's code cells as a kernel's In holds them, in order
    ran: dict = field(default_factory=dict)  # cell name (sandbox_cells) -> how many code cells up to it, itself too
    written: dict = field(default_factory=dict)  # cell name (sandbox_cells) -> the file its %%writefile writes
    notebook: bytes = b""  # the notebook file as handed in: the grader puts it in each scenario's working folder


@dataclass(frozen=True)
class Layout:
    """What the course's notebook looks like: which cells are trusted, which are the student's."""
    # (grade_id, trusted source or None for a solution cell), in notebook order; a demo cell is "demo-<index>"
    # with only what it defines (notebook_code.demo_definitions)
    definitions: tuple
    locked_sources: dict  # grade_id -> source, for locked cells (setup and test cells)
    known_cell_ids: frozenset
    known_sources: frozenset
    notebook_only: frozenset = frozenset()  # names the demo cells give a value in the notebook, the grader none


def course_layout(source_notebook: Path = SOURCE_NOTEBOOK) -> Layout:
    notebook = nbformat.read(str(source_notebook), as_version=4)
    demos = [cell.source for cell in notebook.cells if is_demo_cell(cell)]
    # a name some demo changes in a way the grader leaves out (crashing_client's patched create) is not defined
    changed = frozenset().union(*(names_changed(source, demo_value) for source in demos))
    definitions, locked, bound, kept = [], {}, set(), set()
    for number, cell in enumerate(notebook.cells):
        grading = cell.metadata.get("nbgrader", {})
        if is_definition_cell(cell):
            definitions.append((grading["grade_id"], None if grading.get("solution") else cell.source))
        elif is_demo_cell(cell):  # describe(), the notebook's client and the like, never the demo
            bound |= global_names(cell.source)[0]
            if demo_definitions(cell.source, changed):
                definitions.append((f"demo-{number}", demo_definitions(cell.source, changed)))
                kept |= global_names(demo_definitions(cell.source, changed))[0]
        if grading.get("locked") and "grade_id" in grading:
            locked[grading["grade_id"]] = cell.source
    return Layout(tuple(definitions), locked, frozenset(c.get("id") for c in notebook.cells if c.get("id")),
                  frozenset(c.source.strip() for c in notebook.cells), frozenset(bound - kept))


def parse_notebook_text(text: str):
    """(notebook, notes): the notebook as nbformat nodes, or None when nothing can be read."""
    notes = []
    try:
        data = json.loads(text)
    except ValueError as exc:
        try:
            data = json5.loads(text)
            notes.append(f"提交的笔记本 JSON 有语法错误（{_json_error(exc)}），已自动修复后评分。")
        except ValueError:
            data = {"cells": _complete_cells(text), "metadata": {}}
            if not data["cells"]:
                return None, [f"提交的笔记本不是合法的 JSON（{_json_error(exc)}），也没法自动修复，读不出任何代码。"]
            notes.append(f"提交的笔记本不是合法的 JSON（{_json_error(exc)}），只找回了出错之前完整的 "
                         f"{len(data['cells'])} 个单元格，按这些评分。")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return None, notes + ["提交的文件不是 Jupyter 笔记本（没有 cells 列表），读不出任何代码。"]
    cells = []
    for raw in data["cells"]:
        if not isinstance(raw, dict):
            continue
        source = raw.get("source", "")
        source = "".join(source) if isinstance(source, list) else source if isinstance(source, str) else ""
        metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
        cell = nbformat.from_dict({"cell_type": raw.get("cell_type", "code"), "source": source,
                                   "metadata": metadata})
        if isinstance(raw.get("id"), str):
            cell["id"] = raw["id"]
        cells.append(cell)
    notebook = nbformat.from_dict({"cells": cells, "metadata": data.get("metadata") or {},
                                   "nbformat": 4, "nbformat_minor": 5})
    return notebook, notes


def _complete_cells(text: str) -> list:
    """The cells that are complete before the point where a damaged notebook stops being JSON."""
    start = re.search(r'"cells"\s*:\s*\[', text)
    if start is None:
        return []
    decoder, position, cells = json.JSONDecoder(), start.end(), []
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        try:
            cell, position = decoder.raw_decode(text, position)
        except ValueError:
            return cells
        if isinstance(cell, dict):
            cells.append(cell)


def _json_error(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"第 {exc.lineno} 行第 {exc.colno} 列：{exc.msg}"
    return str(exc)[:80]


def read_submission(path: Path, layout: Layout | None = None) -> Submission:
    """The student's code from the notebook at `path` (which may be missing or damaged)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return Submission(notes=["没有找到提交的笔记本，自动评分的部分都记 0 分。"])
    except (OSError, UnicodeDecodeError) as exc:
        return Submission(notes=[f"提交的笔记本读不出来（{exc}），自动评分的部分都记 0 分。"])
    notebook, notes = parse_notebook_text(text)
    if notebook is None:
        return Submission(notes=notes)
    submission = submission_from_notebook(notebook, layout)
    submission.notes[:0] = notes
    submission.notebook = text.encode("utf-8")
    return submission


def submission_from_notebook(notebook, layout: Layout | None = None) -> Submission:
    """The student's code from a parsed notebook (nbformat nodes)."""
    layout = layout or course_layout()
    solution_ids = [grade_id for grade_id, trusted in layout.definitions if trusted is None]
    submission = Submission(notes=list(notebook.metadata.get(NOTES_KEY, [])))
    seen, after, added, left_out, unchanged = {}, layout.definitions[0][0], {}, {}, {}
    acting = acting_functions(cell.source for cell in notebook.cells if cell.cell_type == "code")
    modules = SANDBOX_MODULES | installed_modules_in_use(
        (cell.source, cell.metadata.get("nbgrader", {}).get("grade_id") in solution_ids)
        for cell in notebook.cells if cell.cell_type == "code")
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "code":
            submission.history.append(python_source(cell.source))
        if grade_id is not None:
            submission.ran[grade_id] = len(submission.history)
            seen[grade_id] = seen.get(grade_id, 0) + 1
            if grade_id in solution_ids:
                submission.code[grade_id] = cell.source  # a later copy wins, as in nbgrader
                after = grade_id
            elif grade_id in layout.locked_sources:
                if grade_id in dict(layout.definitions):
                    after = grade_id
                if cell.source.strip() != layout.locked_sources[grade_id].strip():
                    submission.notes.append(f"锁定的单元格 {grade_id} 被改动过；评分时用的是课程原版。")
            continue
        if cell.cell_type == "code" and _added_by_student(cell, layout):
            added[after] = added.get(after, 0) + 1
            written, note, file = writefile_cell(cell.source)
            submission.notes += [note] if note else []
            definitions = written or definitions_only(cell.source, acting, modules)
            if definitions:
                submission.extra.append((after, definitions, added[after]))
                submission.ran[f"{after}+{added[after]}"] = len(submission.history)
            if file:
                submission.written[f"{after}+{added[after]}"] = file
            left_out[f"{after}+{added[after]}"] = global_names(cell.source)[0] - global_names(definitions)[0]
            unchanged[f"{after}+{added[after]}"] = set(changed_in_place(cell.source) - changed_in_place(definitions))
    for grade_id, count in seen.items():
        if count > 1:
            submission.notes.append(f"grade_id 为 {grade_id} 的单元格出现了 {count} 次，按最后一个评分。")
    for grade_id in solution_ids:
        if grade_id not in submission.code:
            submission.notes.append(f"没有找到答题单元格 {grade_id}（可能被删掉了），用到它的检查都不得分。")
    submission.notes += left_out_notes(submission, layout, left_out, unchanged)
    return submission


# Names a cell can use without defining them: Python's builtins and what the kernel's namespace gives.
GIVEN_NAMES = frozenset(dir(builtins)) | {"get_ipython", "display", "In", "Out", "exit", "quit", "__file__"}


def global_names(source: str) -> tuple:
    """(bound, used): the global names a cell binds, and those it uses (at its top level or inside its functions)
    without binding them locally."""
    try:
        table = symtable.symtable(python_source(source), "<cell>", "exec")
    except (SyntaxError, ValueError):
        return set(), set()
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    used, pending = set(), [table]
    while pending:
        scope = pending.pop()
        used |= {s.get_name() for s in scope.get_symbols()
                 if s.is_referenced() and (scope is table or s.is_global()) and not s.is_declared_global()}
        pending.extend(scope.get_children())
    return bound, used


def left_out_notes(submission: Submission, layout: Layout, left_out: dict, unchanged: dict) -> list:
    """Notes on the names the student's code uses that the notebook defines and the grader does not: assigned by a
    statement of an added cell that the grader does not run (`left_out`: cell name -> such names), or by a demo;
    or changed in place by such a statement (`unchanged`: cell name -> names), a table the grader leaves emptier.
    In the notebook they are as the code expects, so the NameError or KeyError they give in grading is the grader's
    doing, and is said so."""
    bound, used = set(GIVEN_NAMES), set()
    sources = [source for _, source in layout.definitions if source is not None]
    sources += list(submission.code.values()) + [source for _, source, _ in submission.extra]
    for source in sources:
        bound |= global_names(source)[0]
    for source in list(submission.code.values()) + [source for _, source, _ in submission.extra]:
        used |= global_names(source)[1]
    missing, notes = used - bound, []
    for name, names in left_out.items():
        if missing & names:
            listed = "、".join(sorted(missing & names))
            notes.append(f"{cell_as_seen(name)}里定义 {listed} 的语句评分时没有运行：{SKIPPED_STATEMENTS}"
                         f"你的代码用到了 {listed}，评分时它没有定义，会报 NameError；在你的 notebook 里它是有的，"
                         "这不是你的代码写错了。把需要它的语句放进答题单元格，或在函数里自己得到它。")
            missing -= names
    for name, names in unchanged.items():
        if (used - missing) & names:
            listed = "、".join(sorted((used - missing) & names))
            notes.append(f"{cell_as_seen(name)}里改动 {listed} 的语句（往表里填内容、update、append 之类）评分时没有运行："
                         f"{SKIPPED_STATEMENTS}你的代码用到了 {listed}，评分时它少了这些改动（表可能是空的，查表会得到 KeyError "
                         "或默认值）；在你的 notebook 里它是改过的，这不是你的代码写错了。把这些语句放进答题单元格，"
                         "或者去掉同一条语句里 print 这类会做事的调用。")
    if missing & layout.notebook_only:
        listed = "、".join(sorted(missing & layout.notebook_only))
        notes.append(f"你的代码用到了 {listed}：在 notebook 里它是课程的演示单元格运行时定义的；评分时不运行演示，只取其中的"
                     f"定义（import、def、class 和 client = make_client() 这类不做事的赋值），所以评分时没有 {listed}，"
                     "用到的地方会报 NameError。这不是你的代码写错了：在答题单元格里自己定义需要的值就能得分。")
    return notes


# What the notes on a left-out statement say the grader runs of a cell the student added (definitions_only).
SKIPPED_STATEMENTS = ("评分时你加的单元格只取定义和不做事的语句（import、def、class，不调用 run_agent、print 这类会做事的函数的"
                      "赋值、调用和 if/try/for/with，while 要整个不做事），会做事的语句不运行。")


def changed_in_place(source: str) -> collections.Counter:
    """How many statements change each global name in place when the cell runs (`ACTIONS[tool] = ...`,
    `ACTIONS.update(...)`, `COUNT += 1`), function bodies aside: compared with the kept definitions', what the
    grader left out."""
    try:
        pending = list(ast.parse(python_source(source)).body)
    except SyntaxError:
        return collections.Counter()
    changed = collections.Counter()
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed.update(changed_through(node))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            changed[node.target.id] += 1
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.attr in CHANGING_METHODS):
            changed[node.func.value.id] += 1
        pending.extend(ast.iter_child_nodes(node))
    return changed


# The methods of dict, list and set that change the object they are called on.
CHANGING_METHODS = frozenset({"update", "setdefault", "append", "extend", "insert", "add", "discard", "remove", "pop",
                              "popitem", "clear", "__setitem__"})


WRITEFILE = re.compile(r"\A%%writefile(?P<arguments>[^\n]*)\n")
PLAIN_FILE_NAME = re.compile(r"(?:-a\s+)?(?P<name>\w[\w.-]*)")  # a file in the working folder itself


def writefile_cell(source: str) -> tuple:
    """(code, note, file name) for a cell the student added. A `%%writefile name` cell writing a plain file name (a
    helper module the answers import) is kept as the kernel runs it: defined in each scenario's fresh working
    folder, before the cells after it, it writes the file there as the notebook did. One writing anywhere else is
    left out, with a note; (None, None, None) for any other cell."""
    found = WRITEFILE.match(source.lstrip("\n"))
    if found is None:
        return None, None, None
    arguments = found.group("arguments").strip()
    plain = PLAIN_FILE_NAME.fullmatch(arguments)
    if plain:
        return python_source(source.lstrip("\n")), None, plain.group("name")
    return None, (f"你加的单元格「%%writefile {arguments}」评分时没有运行：评分时只运行把文件写进当前文件夹、只给文件名的 "
                  "%%writefile（例如 %%writefile helpers.py），写到别的文件夹、带路径或引号的不运行。"
                  "答案要是 import 它，评分时会找不到；改成只有文件名的写法，或者把代码直接放进答题单元格。"), None


MISSING_MODULE = re.compile(r"No module named '(?P<module>[^'.]+)[^']*'")


def writer_below(name: str, error: dict, cells: list, written: dict) -> str | None:
    """The cell further down than cell `name` (in `cells`, sandbox_cells) whose %%writefile (`written`, as
    Submission has it) writes the module that cell `name` raised `error` importing (ModuleNotFoundError); None if
    none does. Run top to bottom, the import comes before the file is there."""
    found = MISSING_MODULE.fullmatch(str(error.get("message"))) if error.get("type") == "ModuleNotFoundError" else None
    names = [cell["name"] for cell in cells]
    below = names[names.index(name) + 1:] if found and name in names else []
    return next((cell for cell in below if written.get(cell) == f"{found.group('module')}.py"), None)


def _added_by_student(cell, layout: Layout) -> bool:
    if cell.get("id") in layout.known_cell_ids:
        return False
    return cell.source.strip() not in layout.known_sources


# Calling these at the top level of a cell runs the lesson's code (an agent, a save, a tool), not a definition.
# (make_client() only builds the offline client, as the notebook's first cell does: an assignment from it is kept.)
COURSE_ACTIONS = frozenset({"run_agent", "reconcile", "incident_reconcile", "save_checkpoint", "load_checkpoint",
                            "recovery_action", "execute_tool", "MailServer", "replay_incident",
                            "crash_explorer", "checkpoint_viewer", "crash_matrix", "plot_matrix", "ledger_matrix",
                            "display", "print", "input", "exec", "eval"})


def acting_functions(sources) -> frozenset:
    """COURSE_ACTIONS, and the functions the cells define at their top level that call one of them (print and
    display aside: output goes nowhere when graded), directly or through another such function: a cell's
    `try_it()` runs the agent as surely as `run_agent(...)` does."""
    calls = {}
    for source in sources:
        try:
            tree = ast.parse(python_source(source))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls[node.name] = _calls_when_run(node)
    acting = set(COURSE_ACTIONS - {"print", "display"})
    while grown := {name for name, called in calls.items() if name not in acting and called & acting}:
        acting |= grown
    return frozenset(acting | COURSE_ACTIONS)


# Building these runs none of the functions put into them (a table of handlers a factory returns).
_HOLDERS = frozenset({"dict", "list", "tuple", "set", "frozenset", "SimpleNamespace", "MappingProxyType", "OrderedDict",
                      "partial", "staticmethod", "classmethod", "property"})


def _calls_when_run(function) -> set:
    """The names a function calls when it runs: the calls of its body, and of the bodies of the functions and lambdas
    it defines that it calls by name or hands to a call (a thread's target, map's function). One it only returns or
    puts in a table (a factory of handlers, a closure) runs later, if ever (probe 14a: `HANDLERS = make_handlers()`,
    whose closures call execute_tool, was taken for a demo and left out)."""
    called, used, defined, expanded = set(), set(), {}, set()
    pending = list(function.body)
    while True:
        while pending:
            node = pending.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if not isinstance(node, ast.Lambda):  # its decorators and defaults run where it is defined
                    defined.setdefault(node.name, []).append(node)
                    pending.extend(node.decorator_list)
                pending.extend(node.args.defaults + [d for d in node.args.kw_defaults if d is not None])
                continue
            if isinstance(node, ast.Call):
                called.add(_called(node))
                handed = [] if _called(node) in _HOLDERS else node.args + [k.value for k in node.keywords]
                for argument in [node.func, *handed]:
                    argument = argument.value if isinstance(argument, ast.Starred) else argument
                    if isinstance(argument, ast.Lambda):
                        pending.append(argument.body)
                    elif isinstance(argument, ast.Name):
                        used.add(argument.id)
            pending.extend(ast.iter_child_nodes(node))
        ready = [name for name in defined if name in called | used and name not in expanded]
        if not ready:
            return called
        for name in ready:
            expanded.add(name)
            for node in defined[name]:
                pending.extend(node.body)


def definitions_only(source: str, acting: frozenset = COURSE_ACTIONS, modules: frozenset = SANDBOX_MODULES) -> str:
    """The imports, functions, classes and the statements giving names their values in a cell the student added.

    Extra cells are often experiments; what they do at the top level (print, run an
    agent, call the lesson's functions or a function of theirs that does: `acting`) is left out;
    what they define is kept, and so is what fills it in (a loop over READ_ONLY_TOOLS filling a table,
    `ACTIONS.update(...)`), also inside a top-level if, try, for or with: answers may use it, as in
    the notebook. A lambda is a definition whatever its body calls: the body does not run when the
    cell does. An import is kept when its modules are in `modules` (installed_modules_in_use: what the sandbox
    has and a definition uses); another (the instruments, a plotting library for an experiment) is left out.
    """
    return kept_definitions(source, lambda value: not any(_runs_something(part, acting) for part in _evaluated(value)),
                            modules=modules)


def _evaluated(expression):
    """The nodes of an expression that run when it is evaluated: all but the bodies of its lambdas (unless the
    lambda is called right there)."""
    pending = [expression]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda):
            pending.append(node.func.body)
        if isinstance(node, ast.Lambda):
            pending.extend(node.args.defaults + [d for d in node.args.kw_defaults if d is not None])
        else:
            pending.extend(ast.iter_child_nodes(node))


def cell_as_seen(name: str) -> str:
    """A cell the grader names (sandbox_cells), as the student knows it: an answer cell by its grade_id,
    a cell they added by its place."""
    after, plus, number = name.rpartition("+")
    if plus and number.isdigit():
        return f"你在 {after} 后面加的第 {number} 个单元格"
    if name.startswith("demo-"):
        return "课程的一个演示单元格"
    return f"单元格 {name}"


def _runs_something(node, acting: frozenset) -> bool:
    if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
        return True
    return isinstance(node, ast.Call) and _called(node) in acting


def _called(call: ast.Call):
    """The name a call calls: `f` of f(...) and of x.f(...)."""
    return call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)


def sandbox_cells(submission: Submission, layout: Layout | None = None) -> list:
    """The cells the sandbox defines, in notebook order: trusted setup cells, the student's code; each with how many
    of the notebook's code cells a kernel has run once it has run this one ("ran", where the notebook has it)."""
    layout = layout or course_layout()
    cells = []
    for grade_id, trusted in layout.definitions:
        if trusted is not None:
            cells.append({"name": grade_id, "source": trusted})
        elif grade_id in submission.code:
            cells.append({"name": grade_id, "source": python_source(submission.code[grade_id])})
        for after, source, number in submission.extra:
            if after == grade_id:
                cells.append({"name": f"{grade_id}+{number}", "source": source})
    for cell in cells:
        if cell["name"] in submission.ran:
            cell["ran"] = submission.ran[cell["name"]]
    return cells


def restore_missing_cells(notebook, blank) -> None:
    """Put back, from the blank student notebook, every nbgrader cell the submission lacks.

    A deleted answer cell comes back as its unanswered stub, a deleted check or locked
    cell as the original; each goes right after the cell that precedes it in the blank
    notebook. (nbgrader can put back deleted test cells itself, but fails when a deleted
    test cell follows a deleted answer cell.)
    """
    def grade_id(cell):
        return cell.metadata.get("nbgrader", {}).get("grade_id")

    present = {grade_id(cell) for cell in notebook.cells} - {None}
    anchor = -1  # index in notebook.cells after which the next missing cell goes
    for cell in blank.cells:
        name = grade_id(cell)
        if name is None:
            continue
        if name in present:
            anchor = max(i for i, c in enumerate(notebook.cells) if grade_id(c) == name)
        else:
            anchor += 1
            notebook.cells.insert(anchor, copy.deepcopy(cell))


def drop_duplicate_ids(notebook) -> None:
    """Keep nbgrader's mark only on the last cell of each grade_id (the copy nbgrader grades).

    nbgrader's own de-duplication leaves an empty nbgrader dict behind, which later
    steps of `nbgrader autograde` trip over.
    """
    seen = set()
    for cell in reversed(notebook.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in seen:
            del cell.metadata["nbgrader"]
        elif grade_id is not None:
            seen.add(grade_id)


def defined_names(source: str) -> set:
    """The top-level names a cell defines (functions, classes, assignments), even when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        pairs = re.findall(r"^(?:def|class)\s+(\w+)|^(\w+)\s*(?::[^=\n]*)?=(?!=)", source, re.M)
        return {name for pair in pairs for name in pair if name}
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def recover_renamed_cells(notebook, blank) -> list:
    """Give an answer cell whose grade_id was renamed or deleted its grade_id back; return notes.

    A cell is recognised as the missing answer cell G by content and position: a code cell that defines
    the names the course's G defines (the nearest to G's place wins), a written-answer cell that stands
    where G stood. nbgrader metadata that still names no cell of the course is removed, so nbgrader grades
    the rest of the notebook instead of failing on it; such a cell counts as one the student added.
    """
    def grade_id(cell):
        return cell.metadata.get("nbgrader", {}).get("grade_id")

    known = {grade_id(c): c for c in blank.cells if grade_id(c)}
    order = [grade_id(c) for c in blank.cells if grade_id(c)]
    present = {grade_id(c) for c in notebook.cells} & set(known)
    missing = [g for g in order if g not in present and known[g].metadata["nbgrader"].get("solution")]
    wanted = {g: defined_names(source) for g, source in reference_solutions().items()}
    notes = []
    for g in missing:
        region = _region(notebook, order, g, grade_id)
        kind = known[g].cell_type
        candidates = []
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != kind or (grade_id(cell) in known):
                continue
            marked = "nbgrader" in cell.metadata
            if kind == "code":
                overlap = len(defined_names(cell.source) & wanted.get(g, set()))
                if overlap and (marked or region[0] < index < region[1]):
                    candidates.append((-overlap, not region[0] < index < region[1], index))
            elif marked and region[0] < index < region[1]:
                candidates.append((0, False, index))
        if not candidates:
            continue
        cell = notebook.cells[min(candidates)[2]]
        old = grade_id(cell)
        cell.metadata["nbgrader"] = copy.deepcopy(known[g].metadata["nbgrader"])
        how = f"的 grade_id 被改成了 {old}" if old else "没有 nbgrader 标记（grade_id 被删掉了）"
        notes.append(f"答题单元格 {g} {how}；按它的位置和内容认定它就是 {g}，照常评分。")
    return notes + [note for note in (_forget_unknown(c, known) for c in notebook.cells) if note]


def _forget_unknown(cell, known) -> str:
    grading = cell.metadata.get("nbgrader")
    if grading is None or grading.get("grade_id") in known:
        return ""
    name = cell.metadata["nbgrader"].get("grade_id")
    del cell.metadata["nbgrader"]
    return (f"单元格的 grade_id {name} 不是这门课的，找不到它对应的题目；它按你自己加的单元格处理"
            "（它定义的函数照常生效，但不单独计分）。")


def _region(notebook, order, missing, grade_id) -> tuple:
    """(after, before): notebook indices of the course cells right before and after `missing`'s place."""
    place = order.index(missing)
    indices = {grade_id(c): i for i, c in enumerate(notebook.cells) if grade_id(c)}
    after = max((indices[g] for g in order[:place] if g in indices), default=-1)
    before = min((indices[g] for g in order[place + 1:] if g in indices), default=len(notebook.cells))
    return after, before
