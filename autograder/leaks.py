"""Find hidden-test code and reference solutions in text meant for students.

Feedback quotes bits of what the student's code returned or raised; a student whose
code reads the grader's files could try to smuggle them out that way. `PrivateLines`
knows every substantial line of every lesson's hidden tests and reference solution,
and says which of them a text contains.
"""
import html
from functools import lru_cache

import nbformat

from .lessons import DEFAULT, LESSONS

HIDDEN_TESTS = DEFAULT.hidden_tests
MIN_LENGTH = 24  # shorter lines (`return cp`, `import json`) are common in anybody's code
KEY_LENGTH = 12  # private lines are looked up by their first this many characters (at most MIN_LENGTH)
MAX_CLEAN_LINES = 200_000  # remembered clean lines, a few tens of MB at most


def _solution_lines(source: str, inside_wanted: bool = True) -> list:
    """The stripped lines between the solution markers (or, with inside_wanted=False, the others)."""
    lines, inside = [], False
    for line in source.splitlines():
        marker = line.strip()
        if marker == "### BEGIN SOLUTION":
            inside = True
        elif marker == "### END SOLUTION":
            inside = False
        elif inside == inside_wanted:
            lines.append(marker)
    return lines


def _shown_lines(cell) -> list:
    """What the student notebook shows of a source cell: everything but its solution (a written answer's
    reference is all solution)."""
    if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
        return []
    return _solution_lines(cell.source, inside_wanted=False)


class PrivateLines:
    """The lines students must never see: the hidden tests' and the reference solution's."""

    def __init__(self):
        hidden, solutions, shown = [], [], []
        for lesson in LESSONS.values():
            hidden += [line.strip() for path in sorted(lesson.hidden_tests.glob("*.py"))
                       for line in path.read_text(encoding="utf-8").splitlines()]
            notebook = nbformat.read(str(lesson.source_notebook), as_version=4)
            solutions += [line for cell in notebook.cells for line in _solution_lines(cell.source)]
            shown += [line for cell in notebook.cells for line in _shown_lines(cell)]
        # What some lesson's student notebook already shows is no secret: lesson 4's answer cell for the code
        # carried over from lesson 3 holds lines lesson 3's locked cells show (`save_checkpoint(state, path)`).
        shown = "\n".join(shown)  # a line (no line break) is in it exactly when one of its lines holds it

        def private(line):
            return len(line) >= MIN_LENGTH and not line.startswith("#") and line not in shown

        self.hidden_lines = {line for line in hidden if private(line)}
        self.solution_lines = {line for line in solutions if private(line)}
        self._private = self.hidden_lines | self.solution_lines
        # A private line is in a text line exactly when, at some place, the text holds its first KEY_LENGTH characters
        # and the line from there: the text's few places are looked up, not each of the thousands of private lines.
        self._by_key = {}
        for line in self._private:
            self._by_key.setdefault(line[:KEY_LENGTH], []).append(line)
        self._keys = frozenset(self._by_key)
        # Lines of text already found to hold no private line. A private line has no line break, so it is in a
        # text exactly when it is in one of the text's lines; and most of what every student receives (the
        # feedback page's styles, the lesson's own cells and messages) is the same for the whole class.
        self._clean = set()

    def _found_in(self, text: str) -> set:
        found = set()
        for line in set(html.unescape(text).splitlines()):
            if line in self._clean:
                continue
            keys = {line[at:at + KEY_LENGTH] for at in range(len(line) - KEY_LENGTH + 1)} & self._keys
            hits = {private for key in keys for private in self._by_key[key] if private in line}
            if hits:
                found |= hits
            elif len(self._clean) < MAX_CLEAN_LINES:
                self._clean.add(line)
        return found

    def hidden_test_code_in(self, text: str) -> list:
        return sorted(self._found_in(text) & self.hidden_lines)

    def solution_code_in(self, text: str) -> list:
        return sorted(self._found_in(text) & self.solution_lines)

    def any_in(self, text: str) -> list:
        found = self._found_in(text)
        return sorted(found & self.hidden_lines) + sorted(found & self.solution_lines)


@lru_cache(maxsize=1)
def private_lines() -> PrivateLines:
    return PrivateLines()
