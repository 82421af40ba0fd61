"""A lesson's grading corpus takes minutes of judging: when pytest has collected its tests, it starts grading in a
process of its own (grading_corpus.CorpusInBackground) and the tests that read its verdicts run last."""
import shutil
import tempfile
from pathlib import Path

import pytest
from grading_corpus import BACKGROUND, CorpusInBackground


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected: only a corpus some selected test reads
def pytest_collection_modifyitems(session, config, items):
    if config.option.collectonly:
        return
    reading = [item for item in items if "verdicts" in getattr(item, "fixturenames", ())]
    for lesson in {item.module.LESSON.assignment: item.module.LESSON for item in reading}.values():
        BACKGROUND[lesson.assignment] = CorpusInBackground(
            lesson, Path(tempfile.mkdtemp(prefix=f"corpus_{lesson.assignment}_")))
    last = set(reading)
    items[:] = [item for item in items if item not in last] + reading


def pytest_unconfigure(config):
    while BACKGROUND:
        background = BACKGROUND.popitem()[1]
        background.stop()
        shutil.rmtree(background.folder, ignore_errors=True)
