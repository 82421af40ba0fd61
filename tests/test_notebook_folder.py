"""The notebook's own files in each scenario's working folder (autograder.folder.notebook_folder_files)."""
import random
import time

import pytest

from autograder.folder import notebook_folder_files
from autograder.lessons import LESSONS


@pytest.mark.parametrize("seed", range(20))
def test_the_files_look_saved_by_a_student_before_grading(seed):
    lesson, now = LESSONS["lesson03"], time.time()
    files = notebook_folder_files(lesson.source_notebook.parent, lesson.notebook, b'{"cells": []}', now,
                                  random.Random(seed))
    notebook, copy = files[f"{lesson.notebook}.ipynb"], files[f".ipynb_checkpoints/{lesson.notebook}-checkpoint.ipynb"]
    assert notebook == copy == b'{"cells": []}'  # what was handed in, not the blank release
    assert notebook.mtime_ns <= (now - 60) * 1e9  # saved before grading, not a moment ago
    assert copy.mtime_ns <= notebook.mtime_ns  # JupyterLab copies with the time: never newer than the notebook
    assert files["loop.svg"].mtime_ns < copy.mtime_ns  # the lesson's picture came first


def test_no_notebook_but_the_one_handed_in():
    """The lesson's source folder holds the solutions' notebook: it never goes into the working folder."""
    lesson = LESSONS["lesson04"]
    files = notebook_folder_files(lesson.source_notebook.parent, lesson.notebook, b"", time.time(), random.Random(1))
    assert not any(name.endswith(".ipynb") for name in files)
    files = notebook_folder_files(lesson.source_notebook.parent, lesson.notebook, b"{}", time.time(), random.Random(1))
    assert sorted(files) == [f".ipynb_checkpoints/{lesson.notebook}-checkpoint.ipynb", f"{lesson.notebook}.ipynb"]
