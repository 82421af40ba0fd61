"""The course's assignments, as the grader sees them: one Lesson per nbgrader assignment.

Everything that differs between lessons is named here once (the assignment's name, its
notebook, its hidden tests); the judge, `make grade`, the records and the class report
take a Lesson instead of assuming lesson 3.

    from autograder.lessons import LESSONS, lesson
    lesson("lesson04").source_notebook   # source/lesson04/effects-and-idempotency.ipynb
"""
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Lesson:
    assignment: str    # nbgrader's assignment name, and the folder under source/ and release/
    notebook: str      # the notebook's file name without .ipynb
    hidden_tests: Path  # the pytest folder autograder.judge runs for it

    @property
    def source_notebook(self) -> Path:
        return ROOT / "source" / self.assignment / f"{self.notebook}.ipynb"

    @property
    def release_notebook(self) -> Path:
        return ROOT / "release" / self.assignment / f"{self.notebook}.ipynb"


LESSONS = {
    "lesson03": Lesson("lesson03", "resume-from-checkpoint", ROOT / "autograder" / "hidden_tests"),
    "lesson04": Lesson("lesson04", "effects-and-idempotency", ROOT / "autograder" / "hidden_tests_lesson04"),
}
DEFAULT = LESSONS["lesson03"]


def lesson(assignment: str) -> Lesson:
    try:
        return LESSONS[assignment]
    except KeyError:
        raise ValueError(f"没有这一课：{assignment}（课程里有 {'、'.join(LESSONS)}）") from None
