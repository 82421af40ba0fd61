"""The mutation instrument's generator and sampler (no judging, no sandbox: instruments.mutants judge does that)."""
import ast
import json
from collections import Counter

import pytest

from autograder.lessons import lesson
from autograder.notebook_code import full_marks_notebook
from instruments.mutants import main, mutants_of, sample

SNIPPET = '''import json
import os


def save(path, record, retries=3):
    """Write one record."""
    data = {"id": record["id"], "name": record["name"]}
    if retries > 0 and path:
        try:
            with open(path, "a") as f:
                f.write(json.dumps(data, ensure_ascii=False))
                os.fsync(f.fileno())
        except FileNotFoundError as exc:
            raise RuntimeError("missing") from exc
        except ValueError:
            return None
    return True


def flags():
    return os.O_WRONLY | os.O_APPEND
'''
SAVE = ast.unparse(ast.parse(SNIPPET))  # mutants are unparsed: compare like with like

# operator -> (a line of the original, what it becomes in one of that operator's mutants)
EXPECTED = {
    "drop_durability_call": ("os.fsync(f.fileno())", None),
    "change_exception": ("except FileNotFoundError as exc:", "except OSError as exc:"),
    "drop_cause": ("raise RuntimeError('missing') from exc", "raise RuntimeError('missing')"),
    "swap_arguments": ("with open(path, 'a') as f:", "with open('a', path) as f:"),
    "drop_keyword": ("f.write(json.dumps(data, ensure_ascii=False))", "f.write(json.dumps(data))"),
    "drop_dict_key": ("data = {'id': record['id'], 'name': record['name']}", "data = {'name': record['name']}"),
    "swap_fields": ("data = {'id': record['id'], 'name': record['name']}",
                    "data = {'name': record['name'], 'id': record['id']}"),
    "replace_key": ("data = {'id': record['id'], 'name': record['name']}",
                    "data = {'id': record['name'], 'name': record['name']}"),
    "change_constant": ("def save(path, record, retries=3):", "def save(path, record, retries=4):"),
    "append_to_write": ("with open(path, 'a') as f:", "with open(path, 'w') as f:"),
    "zero_open_flag": ("return os.O_WRONLY | os.O_APPEND", "return os.O_WRONLY | 0"),
    "return_none": ("return True", "return None"),
    "negate_condition": ("if retries > 0 and path:", "if not (retries > 0 and path):"),
    "flip_comparison": ("if retries > 0 and path:", "if retries >= 0 and path:"),
    "and_or": ("if retries > 0 and path:", "if retries > 0 or path:"),
    "delete_statement": ("data = {'id': record['id'], 'name': record['name']}", None),
}


@pytest.fixture(scope="module")
def mutants():
    return mutants_of(SNIPPET, "save_cell")


def made_by(mutants, operator: str) -> set:
    return {m["source"] for m in mutants if m["operator"] == operator}


def replaced(source: str, old: str, new: str | None) -> str:
    """The snippet with one line changed (new=None: removed)."""
    lines = source.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip() == old)
    indent = lines[index][:len(lines[index]) - len(lines[index].lstrip())]
    lines[index:index + 1] = [] if new is None else [indent + new]
    return "\n".join(lines)


@pytest.mark.parametrize("operator", sorted(EXPECTED))
def test_each_operator_makes_the_expected_mutant(mutants, operator):
    old, new = EXPECTED[operator]
    made = made_by(mutants, operator)
    assert replaced(SAVE, old, new) in made, made


def test_statement_and_handler_operators(mutants):
    write, fsync = "f.write(json.dumps(data, ensure_ascii=False))", "os.fsync(f.fileno())"
    swapped = SAVE.replace(f"{write}\n                {fsync}", f"{fsync}\n                {write}")
    twice = SAVE.replace(write, f"{write}\n                {write}")
    assert swapped != SAVE and swapped in made_by(mutants, "swap_statements")
    assert twice in made_by(mutants, "duplicate_statement")
    assert SAVE.replace("\n        except ValueError:\n            return None", "") in made_by(mutants, "drop_handler")
    assert all("Write one record" in source for source in made_by(mutants, "delete_statement"))  # docstrings stay
    assert replaced(SAVE, "import os", None) not in {m["source"] for m in mutants}  # module level: no statement ops


def test_the_first_operator_names_a_mutant_two_operators_make(mutants):
    no_fsync = replaced(SAVE, "os.fsync(f.fileno())", None)
    assert [m["operator"] for m in mutants if m["source"] == no_fsync] == ["drop_durability_call"]


def test_every_mutant_compiles_differs_and_appears_once(mutants):
    sources = [m["source"] for m in mutants]
    assert len(sources) == len(set(sources)) and SAVE not in sources
    for mutant in mutants:
        compile(mutant["source"], "mutant", "exec")
    assert {m["function"] for m in mutants} == {"save", "flags"}
    every_operator = set(EXPECTED) | {"swap_statements", "duplicate_statement", "drop_handler"}
    assert every_operator <= {m["operator"] for m in mutants}


def test_sampling_is_reproducible_and_spreads_across_functions():
    many = [{"cell": "a", "function": "big", "source": str(i)} for i in range(100)]
    few = [{"cell": "a", "function": "small", "source": f"s{i}"} for i in range(3)]
    other = [{"cell": "b", "function": "big", "source": f"b{i}"} for i in range(10)]
    first, again = sample(many + few + other, 12, seed=5), sample(many + few + other, 12, seed=5)
    assert first == again and len(first) == 12
    assert sample(many + few + other, 12, seed=6) != first
    assert Counter((m["cell"], m["function"]) for m in first) == {("a", "big"): 5, ("a", "small"): 3,
                                                                   ("b", "big"): 4}
    assert len(sample(few, 12, seed=5)) == 3


def test_list_makes_mutants_of_answer_cells_only(tmp_path):
    main(["list", "lesson03", "--out", str(tmp_path), "--cap", "60", "--seed", "3"])
    listing = json.loads((tmp_path / "mutants.json").read_text(encoding="utf-8"))
    notebook = full_marks_notebook(lesson("lesson03"))
    answer_cells = {cell.metadata["nbgrader"]["grade_id"] for cell in notebook.cells
                    if cell.metadata.get("nbgrader", {}).get("solution")}
    assert listing["lesson"] == "lesson03" and len(listing["mutants"]) == 60 and listing["made"] > 60
    assert {m["cell"] for m in listing["mutants"]} <= answer_cells
    assert len({m["cell"] for m in listing["mutants"]}) > 3  # spread, not the first cell's 60
    assert [m["id"] for m in listing["mutants"]] == [f"m{i:03d}" for i in range(60)]
    for mutant in listing["mutants"]:
        assert mutant["source"] != listing["originals"][mutant["cell"]]
        assert set(mutant) == {"id", "cell", "function", "operator", "description", "source"}
