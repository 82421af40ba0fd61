"""The effect ledger's file (lesson 4): where it lives and how it is read back after a crash.

The ledger is a JSON Lines file beside the checkpoint, one record a line, only
ever appended to: an "intent" record before a call with an effect runs, an
"outcome" record after it. Writing it durably is the lesson's exercise
(`append_ledger` in the notebook); reading it back is given here, because a
crash can leave one thing the reader must handle: half a line at the end.
"""
import json
import os
from pathlib import Path

LEDGER_NAME = "ledger.jsonl"


def ledger_path(checkpoint_path) -> Path:
    """The ledger of the task whose checkpoint is `checkpoint_path`: the same folder, its own file."""
    return Path(checkpoint_path).with_name(LEDGER_NAME)


def read_ledger(path) -> list[dict]:
    """Every complete record, oldest first; [] when there is no ledger yet.

    An append that a crash cut short leaves a last line without its line break. Its append never
    returned, so the record was never written: it is left out, and cut off the file (as databases do
    with a torn log tail), so that the next append starts on a line of its own. Any other line that is
    not a JSON object means the file is damaged: ValueError, in Chinese, naming the file.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    complete = data[:data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        fd = os.open(path, os.O_WRONLY)  # os.open: the crash probes must not take this repair for an append
        try:
            os.ftruncate(fd, len(complete))
            os.fsync(fd)
        finally:
            os.close(fd)
    records = []
    for number, line in enumerate(complete.decode("utf-8", errors="replace").splitlines(), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            raise ValueError(f"效果台账 {path} 第 {number} 行不是一条完整的记录，文件可能已损坏：{line[:60]!r}")
        records.append(record)
    return records
