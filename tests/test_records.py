"""The grader's own resume records are written the way the lesson teaches: whole or not at all, nothing left behind."""
import json

import pytest

from autograder.records import write_json_atomically


def test_a_record_is_written_whole(tmp_path):
    target = tmp_path / "records" / "alice.json"
    write_json_atomically(target, {"score": 23})
    assert json.loads(target.read_text(encoding="utf-8")) == {"score": 23}
    assert [p.name for p in target.parent.iterdir()] == ["alice.json"]


def test_a_failed_write_keeps_the_old_record_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "alice.json"
    write_json_atomically(target, {"score": 23})

    class Unwritable:
        def __str__(self):
            raise OSError("磁盘满了")

    with pytest.raises(OSError):
        write_json_atomically(target, {"score": 0, "note": Unwritable()})  # fails halfway through the dump
    assert json.loads(target.read_text(encoding="utf-8")) == {"score": 23}
    assert [p.name for p in tmp_path.iterdir()] == ["alice.json"]
