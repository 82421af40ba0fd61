"""The code's layers, read from the import statements: no cycles, and each package imports only below it.

course/        the lesson's runtime: the standard library and its own dependencies only
instruments/   the replay harness, crash matrix and widgets: course/ (teacher_demo and mutants also read source/ via autograder)
autograder/    the grader: course/ and instruments.host, never tests/ or benchmarks/
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("course", "instruments", "autograder", "benchmarks")
ALLOWED = {
    "course": {"course"},
    "instruments": {"course", "instruments"},
    "autograder": {"autograder", "course", "instruments.host"},
    "benchmarks": {"autograder", "benchmarks", "course"},
}
EXCEPTIONS = {  # run from the repository only, never part of the student bundle
    "instruments.teacher_demo": {"autograder.notebook_code", "autograder.lessons"},  # a class demo
    "instruments.mutants": {"autograder.notebook_code", "autograder.lessons", "autograder.judge"},  # tests the grader
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set:
    """Modules of this repository that `path` imports, as dotted names (relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return {m for m in found if m.split(".")[0] in PACKAGES}


def graph() -> dict:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[module_name(path)] = path
    return {name: {m for m in imports(path) if m in modules and m != name} for name, path in modules.items()}


def test_the_reader_finds_imports():
    edges = graph()
    assert "course.model" in edges["course.checks"]
    assert "autograder.protocol" in edges["autograder.child"]  # a relative import, resolved


def test_no_import_cycles():
    edges = graph()
    state = {}

    def visit(name, stack):
        state[name] = "open"
        for target in sorted(edges[name]):
            if state.get(target) == "open":
                pytest.fail("import cycle: " + " -> ".join([*stack[stack.index(target):], target]))
            if target not in state:
                visit(target, [*stack, target])
        state[name] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_below_it(package):
    wrong = []
    for name, targets in graph().items():
        if name.split(".")[0] != package:
            continue
        for target in targets:
            allowed = ALLOWED[package] | EXCEPTIONS.get(name, set())
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                wrong.append(f"{name} imports {target}")
    assert not wrong, wrong
