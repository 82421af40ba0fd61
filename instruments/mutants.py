"""Mutation testing of the grader: wrong answers nobody wrote by hand.

Each mutant is a lesson's reference solution with one small change in one answer cell
(a statement deleted, a comparison flipped, an os.fsync call dropped, ...). The grader
should take points off every one of them; a mutant that still gets full marks is either
equivalent to the reference (a person decides) or a false pass: a hole in the hidden tests.

    python -m instruments.mutants list lesson03 --out build/mutants03 [--cap 250] [--seed 17] [--cells a,b]
    python -m instruments.mutants judge build/mutants03       # resumes: skips the ids results.jsonl holds
    python -m instruments.mutants survivors build/mutants03   # the full-marks mutants, each with its diff

Mutants are made on the syntax tree and written back with ast.unparse, so comments and
formatting are gone; diffs are taken against the unparsed original so they show the one change.
Repository only (it reads source/ and runs autograder.judge): not part of the student bundle.
"""
import argparse
import ast
import copy
import difflib
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import nbformat

from autograder.lessons import lesson
from autograder.notebook_code import full_marks_notebook, reference_solutions

MODULE = "<module>"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
FLIPPED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
           ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
CONSTANTS = {True: False, False: True, None: False}
DURABILITY_CALLS = {"fsync", "fdatasync", "flush", "replace"}
# The handler catches something else: broader, narrower or beside the point.
OTHER_EXCEPTION = {"BaseException": "Exception", "Exception": "ValueError", "OSError": "FileNotFoundError",
                   "FileNotFoundError": "OSError", "ValueError": "TypeError"}
ALIKE_ATTRIBUTES = {"id": "name", "name": "id"}  # tool_use.id and tool_use.name: both strings, easy to mix up


class Site(NamedTuple):
    node: ast.AST
    parent: ast.AST | None
    function: str  # the innermost function holding the node (a def names itself), or MODULE


def sites(tree: ast.AST) -> list[Site]:
    """Every node, breadth first: the same order for a tree and its deep copy, so an index finds a node again."""
    found = [Site(tree, None, MODULE)]
    for node, _, function in found:  # the list grows while we read it
        found.extend(Site(child, node, child.name if isinstance(child, FUNCTIONS) else function)
                     for child in ast.iter_child_nodes(node))
    return found


def short(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 60 else text[:57] + "..."


def replace_child(parent: ast.AST, old: ast.AST, new: ast.AST):
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
        elif isinstance(value, list):
            value[:] = [new if item is old else item for item in value]


def is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
        and isinstance(statement.value.value, str)


# Each group of operators yields (operator, description, change) for one site; change(node, parent)
# makes the mutation on the same site of a deep copy, so it must not hold on to the original's nodes.

def swap(items: list, k: int):
    items[k], items[k + 1] = items[k + 1], items[k]


def remove_statement(parent, statement):
    for value in (v for _, v in ast.iter_fields(parent) if isinstance(v, list) and statement in v):
        value[:] = [s for s in value if s is not statement] or [ast.Pass()]  # a body may not be empty


def calls_and_errors(site, keys_by_base):
    node = site.node
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
            and getattr(node.value.func, "attr", getattr(node.value.func, "id", None)) in DURABILITY_CALLS:
        yield "drop_durability_call", f"remove `{short(node)}`", lambda n, p: remove_statement(p, n)
    if isinstance(node, ast.Try):
        for k, handler in enumerate(node.handlers):  # the only handler: does not compile, skipped
            yield "drop_handler", f"drop `{short(handler)}`", lambda n, p, k=k: n.handlers.pop(k)
    if isinstance(node, ast.ExceptHandler) and node.type is not None:
        old = ast.unparse(node.type)
        new = OTHER_EXCEPTION.get(old, "ValueError")
        yield "change_exception", f"except {old} -> {new}", lambda n, p: setattr(n, "type", ast.Name(new))
    if isinstance(node, ast.Raise) and node.cause is not None:
        yield "drop_cause", f"drop `from {short(node.cause)}`", lambda n, p: setattr(n, "cause", None)
    if isinstance(node, ast.Call):
        for k in range(len(node.args) - 1):
            yield "swap_arguments", f"swap arguments {k}, {k + 1} of `{short(node)}`", \
                lambda n, p, k=k: swap(n.args, k)
        for k, keyword in enumerate(node.keywords):
            yield "drop_keyword", f"drop `{short(keyword)}` in `{short(node.func)}(...)`", \
                lambda n, p, k=k: n.keywords.pop(k)


def records(site, keys_by_base):
    node = site.node
    if isinstance(node, ast.Dict):
        for k, key in enumerate(node.keys):
            name = short(key) if key is not None else f"**{short(node.values[k])}"
            yield "drop_dict_key", f"drop key {name} from `{short(node)}`", \
                lambda n, p, k=k: (n.keys.pop(k), n.values.pop(k))
        for k in range(len(node.keys) - 1 if site.function != MODULE else 0):  # the record written in another order
            yield "swap_fields", f"swap fields {k}, {k + 1} of `{short(node)}`", \
                lambda n, p, k=k: (swap(n.keys, k), swap(n.values, k))
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        for other in sorted(keys_by_base.get(ast.unparse(node.value), set()) - {node.slice.value}):
            yield "replace_key", f"`{short(node)}` -> [{other!r}]", \
                lambda n, p, other=other: setattr(n.slice, "value", other)  # another key the cell reads there
    if isinstance(node, ast.Attribute) and node.attr in ALIKE_ATTRIBUTES:
        other = ALIKE_ATTRIBUTES[node.attr]
        yield "replace_key", f"`{short(node)}` -> .{other}", lambda n, p: setattr(n, "attr", other)
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        yield "assign_to_add", f"`{short(node)}`: = -> +=", \
            lambda n, p: replace_child(p, n, ast.AugAssign(n.targets[0], ast.Add(), n.value))


def values(site, keys_by_base):
    node, parent = site.node, site.parent
    value = getattr(node, "value", None)
    if isinstance(node, ast.Constant) and not isinstance(parent, ast.JoinedStr) and not (
            isinstance(parent, ast.Expr) and isinstance(value, str)):  # not a docstring, not a piece of an f-string
        if isinstance(value, bool) or value is None:
            yield "change_constant", f"{value} -> {CONSTANTS[value]}", \
                lambda n, p: setattr(n, "value", CONSTANTS[value])
        elif isinstance(value, int):
            for step in (1, -1):
                yield "change_constant", f"{value} -> {value + step}", \
                    lambda n, p, step=step: setattr(n, "value", value + step)
        elif isinstance(value, str) and value:
            yield "change_constant", f"{short(node)} -> ''", lambda n, p: setattr(n, "value", "")
        if isinstance(value, str) and value.startswith("a") and isinstance(parent, ast.Call) \
                and short(parent.func).endswith("open"):
            yield "append_to_write", f"open mode {value!r} -> 'w'", lambda n, p: setattr(n, "value", "w" + value[1:])
    if isinstance(node, ast.JoinedStr):
        yield "empty_fstring", f"{short(node)} -> ''", lambda n, p: replace_child(p, n, ast.Constant(""))
    if isinstance(node, ast.Attribute) and short(node.value) == "os" and node.attr.startswith("O_"):
        yield "zero_open_flag", f"os.{node.attr} -> 0", lambda n, p: replace_child(p, n, ast.Constant(0))
    if isinstance(node, ast.Return) and value is not None and not (
            isinstance(value, ast.Constant) and value.value is None):
        yield "return_none", f"return None instead of `{short(value)}`", \
            lambda n, p: setattr(n, "value", ast.Constant(None))


def conditions(site, keys_by_base):
    node = site.node
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield "negate_condition", f"negate `{short(node.test)}`", \
            lambda n, p: setattr(n, "test", ast.UnaryOp(ast.Not(), n.test))
    if isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            if type(op) in FLIPPED:
                yield "flip_comparison", f"flip {type(op).__name__} in `{short(node)}`", \
                    lambda n, p, k=k: n.ops.__setitem__(k, FLIPPED[type(n.ops[k])]())
    if isinstance(node, ast.BoolOp):
        yield "and_or", f"and <-> or in `{short(node)}`", \
            lambda n, p: setattr(n, "op", ast.Or() if isinstance(n.op, ast.And) else ast.And())


def statements(site, keys_by_base):
    if site.function == MODULE:
        return  # deleting an import or a whole def is not the kind of mistake we look for
    for field in ("body", "orelse", "finalbody"):
        body = getattr(site.node, field, None)
        if not (isinstance(body, list) and body and isinstance(body[0], ast.stmt)):
            continue
        for j, statement in enumerate(body):
            if is_docstring(statement):
                continue
            yield "delete_statement", f"delete `{short(statement)}`", \
                lambda n, p, f=field, j=j: remove_statement(n, getattr(n, f)[j])
            if j + 1 < len(body):
                yield "swap_statements", f"swap `{short(statement)}` / `{short(body[j + 1])}`", \
                    lambda n, p, f=field, j=j: swap(getattr(n, f), j)
            # Running these twice changes nothing: the first one leaves the block.
            if not isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue, *FUNCTIONS)):
                yield "duplicate_statement", f"run twice `{short(statement)}`", \
                    lambda n, p, f=field, j=j: getattr(n, f).insert(j, copy.deepcopy(getattr(n, f)[j]))


# When two operators make the same mutant, the group listed first names it
# (removing an os.fsync call is also deleting a statement).
OPERATORS = [calls_and_errors, records, values, conditions, statements]


def mutants_of(source: str, cell: str = "cell") -> list[dict]:
    """Every single-change mutant of one cell that compiles, each source once."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    found, seen = [], {original}
    keys_by_base = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            keys_by_base.setdefault(ast.unparse(node.value), set()).add(node.slice.value)
    for group in OPERATORS:
        for index, site in enumerate(sites(tree)):
            for operator, description, change in group(site, keys_by_base):
                mutated = copy.deepcopy(tree)
                target = sites(mutated)[index]
                change(target.node, target.parent)
                text = ast.unparse(ast.fix_missing_locations(mutated))
                if text in seen:
                    continue
                seen.add(text)
                try:
                    compile(text, cell, "exec")
                except SyntaxError:
                    continue
                found.append({"cell": cell, "function": site.function, "operator": operator,  # L: line as written
                              "description": f"L{site.node.lineno} {description}", "source": text})
    return found


def sample(mutants: list, cap: int, seed: int) -> list:
    """At most cap mutants, taken in turn from each (cell, function), so a big function cannot crowd out the rest."""
    rng = random.Random(seed)
    groups = {}
    for mutant in mutants:
        groups.setdefault((mutant["cell"], mutant["function"]), []).append(mutant)
    for group in groups.values():
        rng.shuffle(group)
    chosen, round_ = [], 0
    while len(chosen) < min(cap, len(mutants)):
        chosen += [group[round_] for _, group in sorted(groups.items()) if round_ < len(group)]
        round_ += 1
    return chosen[:cap]


def list_mutants(assignment: str, out: Path, cap: int, seed: int, cells: list | None) -> dict:
    solutions = reference_solutions(lesson(assignment))
    answer_cells = [cell for cell in solutions if not cells or cell in cells]
    every = [m for cell in answer_cells for m in mutants_of(solutions[cell], cell)]
    chosen = sample(every, cap, seed)
    for number, mutant in enumerate(chosen):
        mutant["id"] = f"m{number:03d}"
    listing = {"lesson": assignment, "seed": seed, "made": len(every), "mutants": chosen,
               "originals": {cell: ast.unparse(ast.parse(solutions[cell])) for cell in answer_cells}}
    out.mkdir(parents=True, exist_ok=True)
    (out / "mutants.json").write_text(json.dumps(listing, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{assignment}: {len(every)} mutants of {len(answer_cells)} answer cells, {len(chosen)} kept -> "
          f"{out / 'mutants.json'}")
    return listing


def read_results(out: Path) -> list:
    path = out / "results.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def judge_mutants(out: Path):
    from autograder.judge import Judge  # imported here: `list` and the tests never start a sandbox
    listing = json.loads((out / "mutants.json").read_text(encoding="utf-8"))
    done = {result["id"] for result in read_results(out)}
    todo = [m for m in listing["mutants"] if m["id"] not in done]
    course_lesson = lesson(listing["lesson"])
    with Judge(lesson=course_lesson, seed=None) as judge, tempfile.TemporaryDirectory() as folder:
        out_of = sum(judge.points.values())
        for number, mutant in enumerate(todo, 1):
            notebook = full_marks_notebook(course_lesson)
            for cell in notebook.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == mutant["cell"]:
                    cell.source = mutant["source"]
            path = Path(folder) / f"{mutant['id']}.ipynb"
            nbformat.write(notebook, str(path))
            verdict = judge.judge_file(path)
            scores = {grade_id: grade["score"] for grade_id, grade in verdict["grades"].items()}
            failing = [f"{grade_id}: {check['title']} — {check['message']}"
                       for grade_id, grade in verdict["grades"].items() for check in grade["checks"]
                       if not check["passed"]]
            result = {"id": mutant["id"], "seed": verdict["seed"], "scores": scores, "total": sum(scores.values()),
                      "out_of": out_of, "errors": verdict["errors"], "failing": failing}
            with (out / "results.jsonl").open("a", encoding="utf-8") as results:  # one line each: a kill loses one
                results.write(json.dumps(result, ensure_ascii=False) + "\n")
            print(f"[{number}/{len(todo)}] {mutant['id']} {result['total']}/{out_of} {mutant['cell']}:"
                  f"{mutant['function']} {mutant['operator']}: {mutant['description']}", flush=True)


def survivors(out: Path) -> list:
    listing = json.loads((out / "mutants.json").read_text(encoding="utf-8"))
    by_id = {mutant["id"]: mutant for mutant in listing["mutants"]}
    full = [by_id[r["id"]] for r in read_results(out) if r["total"] == r["out_of"]]
    for mutant in full:
        print(f"== {mutant['id']} {mutant['cell']}:{mutant['function']} {mutant['operator']}: "
              f"{mutant['description']}")
        original, mutated = listing["originals"][mutant["cell"]], mutant["source"]
        sys.stdout.writelines(difflib.unified_diff(original.splitlines(True), mutated.splitlines(True),
                                                   "reference", mutant["id"]))
        print()
    print(f"{len(full)} of {len(read_results(out))} judged mutants got full marks: each is equivalent or a false pass")
    return full


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m instruments.mutants", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("list", help="make the mutants of a lesson's answer cells")
    make.add_argument("lesson")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--cap", type=int, default=250)
    make.add_argument("--seed", type=int, default=17)
    make.add_argument("--cells", type=lambda text: text.split(","), help="grade ids, comma-separated")
    for name in ("judge", "survivors"):
        commands.add_parser(name).add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "list":
        list_mutants(args.lesson, args.out, args.cap, args.seed, args.cells)
    elif args.command == "judge":
        judge_mutants(args.out)
    else:
        survivors(args.out)


if __name__ == "__main__":
    main()
