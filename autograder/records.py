"""What `make grade` remembers between runs: one record per graded student.

Once a student's results are in the gradebook, autograded/ and feedback/, a record
keyed by a hash of the submitted files is written atomically to
.classgrade/<lesson>/<student>.json. A run grades only students without a record or
with a stale one (a new submission), so an interrupted run (Ctrl-C, kill, even
SIGKILL) picks up where it stopped, and a student who submits again is regraded alone.
"""
import json
import os
from pathlib import Path

STATE_DIR = ".classgrade"


def write_json_atomically(path: Path, data) -> None:
    """Write, fsync, rename over the target, fsync the folder: whole or not at all, even after a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # owner-only, like everything the grader makes from a submission
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=1, default=str)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:  # a full disk, say: no half-written file left beside the records
        temporary.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class Records:
    """One record per graded student: {"fingerprint": ..., "report": what grading the student gave}."""

    def __init__(self, root: Path, assignment: str):
        self.folder = root / STATE_DIR / assignment

    def load(self, student: str) -> dict | None:
        try:
            return json.loads((self.folder / f"{student}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save(self, student: str, submitted: str, report: dict) -> None:
        write_json_atomically(self.folder / f"{student}.json", {"fingerprint": submitted, "report": report})

    def write_log(self, student: str, what: str, text: str) -> Path:
        """A log the instructor can open (a note names it): .classgrade/<assignment>/<student>.<what>.log."""
        path = self.folder / f"{student}.{what}.log"
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text or "（nbgrader 没有给出报错内容）")
        return path

    def reports(self) -> dict:
        """{student: report} of every recorded student."""
        found = {}
        for path in sorted(self.folder.glob("*.json")):
            record = self.load(path.stem)
            if record:
                found[path.stem] = record["report"]
        return found
