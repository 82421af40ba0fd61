"""The lesson's three sample checkpoints, cpA, cpB and cpC, as complete files.

cpA: the meeting-notes task after 6 turns, saved at save point B (nothing pending).
cpB: the same task one turn later, saved at save point A: a read_file call is pending.
cpC: the email task after 9 turns, saved at save point A: a send_email call is pending.
"""
import json
from pathlib import Path

SAMPLES_DIR = Path(__file__).parent / "samples"
SAMPLE_NAMES = ("cpA", "cpB", "cpC")


def sample_path(name: str) -> Path:
    if name not in SAMPLE_NAMES:
        raise ValueError(f"没有名为 {name!r} 的样例检查点，可选：{', '.join(SAMPLE_NAMES)}")
    return SAMPLES_DIR / f"{name}.json"


def load_sample(name: str) -> dict:
    """A fresh copy of one sample checkpoint; change it freely."""
    return json.loads(sample_path(name).read_text(encoding="utf-8"))
