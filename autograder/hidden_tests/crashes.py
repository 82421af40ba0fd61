"""Power cuts during the saves a scenario made: every state autograder.crash_states allows, judged.

`power_cuts(outcome, saves)` replays the scenario's recorded file-system calls and, after
each call of a checked step and once the step is over, collects what a power cut could
leave at the checkpoint's path. Each state must load, with the reference's
load_checkpoint, as one of the checkpoints allowed at that moment: during a save the
previous one (None when there was none) or the new one; once a save has returned, only
the new one. `student_loads(grading, cuts)` then loads every such file with the
student's own load_checkpoint, all in one process, and compares with the reference.
"""
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.crash_states import FileSystem
from autograder.protocol import StepStatus
from autograder.sandbox import Scenario

from .helpers import same, short

FILE_SYNC_ADVICE = ("临时文件写完要 flush 并 os.fsync（或者用 O_SYNC / O_DSYNC 打开它）之后再改名："
                    "断电时，还没落盘的内容会丢，改名却可能已经生效")
FOLDER_SYNC_ADVICE = "改名之后还要 fsync 所在的文件夹（os.open 文件夹再 os.fsync）：改名记在目录里，目录落盘了改名才扛得住断电"
NO_DELETE_ADVICE = "不要先删掉旧的检查点再改名：os.replace 本身就会原子地把旧文件换掉，中间没有「没有检查点」的时刻"
IN_PLACE_ADVICE = "不要直接写目标文件：先写同一文件夹里的临时文件，落盘之后再用 os.replace 换上去"


@dataclass
class Save:
    """One checked step: the checkpoint before it (None: no file) and the state it was asked to save."""
    step: int
    old: object
    new: dict
    what: str  # how the feedback names this save


@dataclass
class Cut:
    """A power cut at one moment: what may be at the path, and what is allowed there."""
    save: Save
    when: str
    contents: set
    allowed: tuple
    calls: list  # the save's recorded calls up to this moment


def _relative(path, workdir: str) -> str:
    return os.path.relpath(path, workdir) if isinstance(path, str) and path.startswith(workdir) else str(path)


def describe(record: dict, workdir: str) -> str:
    """A recorded call, in the student's terms."""
    op, path = record["op"], _relative(record.get("path"), workdir)
    if op == "open":
        return f"打开 {path}" + ("（清空）" if "O_TRUNC" in str(record.get("flags")) else "")
    if op == "write":
        return f"写入 {path}（{record.get('size')} 字节）"
    if op in ("rename", "link"):
        return f"{'改名' if op == 'rename' else '硬链接'} {path} → {_relative(record.get('dst'), workdir)}"
    names = {"fsync": "fsync", "fdatasync": "fdatasync", "unlink": "删除", "truncate": "截断", "close": "关闭",
             "seek": "移动读写位置", "mkdir": "建文件夹", "rmdir": "删文件夹"}
    return "sync()" if op == "sync" else f"{names.get(op, op)} {path}"


def power_cuts(outcome, saves: list) -> list:
    """The cuts during and right after each save in `saves` (Save objects), in the order of the calls."""
    workdir = outcome.workdir
    target = os.path.join(workdir, outcome.scenario.meta["file"])
    files = {os.path.join(workdir, name): data if isinstance(data, bytes) else data.encode("utf-8")
             for name, data in outcome.scenario.files.items()}
    fs = FileSystem(files)
    by_step = {save.step: save for save in saves}
    cuts, calls = [], {save.step: [] for save in saves}
    events = list(outcome.fs_events)
    for number, record in enumerate(events):
        fs.apply(record)
        save = by_step.get(record["step"])
        if save is None:
            continue
        calls[save.step].append(record)
        cuts.append(Cut(save, f"在「{describe(record, workdir)}」之后", fs.after_power_cut(target),
                        (save.old, save.new), list(calls[save.step])))
        if number + 1 == len(events) or events[number + 1]["step"] != record["step"]:
            by_step.pop(save.step)
            cuts.append(_returned(outcome, save, fs.after_power_cut(target), calls[save.step]))
    for save in by_step.values():  # a save that touched no file at all
        cuts.append(_returned(outcome, save, fs.after_power_cut(target), []))
    return cuts


def _returned(outcome, save: Save, contents: set, calls: list) -> Cut:
    returned = outcome.steps[save.step]["status"] == StepStatus.RETURNED
    allowed = (save.new,) if returned else (save.old, save.new)
    return Cut(save, "在 save_checkpoint 返回之后" if returned else "在这次保存结束之后", contents, allowed, calls)


def reference_load(reference, content: bytes | None):
    """(state, None) as the reference's load_checkpoint reads `content`, or (None, its error)."""
    if content is None:
        return None, None
    with tempfile.TemporaryDirectory(prefix="crash-") as folder:
        path = Path(folder) / "checkpoint.json"
        path.write_bytes(content)
        try:
            return reference.load_checkpoint(path), None
        except Exception as exc:  # noqa: BLE001 (any error is a state that does not load)
            return None, exc


def what_is_there(content: bytes | None, state, error, save: Save) -> str:
    if content is None:
        return "没有检查点文件" + ("（原来那一份不见了）" if save.old is not None else "")
    if error is None:
        return "还是保存之前的那一份" if same(state, save.old) else f"是一份别的检查点（{short(state, 60)}）"
    if not content.strip(b"\0 \n"):
        return f"是一个{'空' if not content else '全是空白或零字节的'}文件（{len(content)} 字节）"
    return f"是读不出来的半截文件（{len(content)} 字节，load_checkpoint 抛出 {type(error).__name__}）"


def advice(content, error, calls: list) -> str:
    if content is None:
        return NO_DELETE_ADVICE if any(e["op"] == "unlink" for e in calls) else FOLDER_SYNC_ADVICE
    if error is None:
        return FOLDER_SYNC_ADVICE
    if not any(e["op"] == "rename" for e in calls):
        return IN_PLACE_ADVICE
    return FILE_SYNC_ADVICE


def first_failure(cuts: list, reference) -> str | None:
    """The feedback for the first cut that leaves something not allowed, or None when every cut is fine."""
    for cut in cuts:
        for content in sorted(cut.contents, key=lambda c: (c is not None, len(c or b""), c or b"")):
            state, error = reference_load(reference, content)
            if error is None and any(same(state, allowed) for allowed in cut.allowed):
                continue
            return (f"模拟断电：{cut.save.what}，{cut.when}断电，path 上{what_is_there(content, state, error, cut.save)}。"
                    f"{advice(content, error, cut.calls)}")
    return None


def files_to_load(cuts: list) -> list:
    """Every distinct file content a cut may leave at the path (no file at all is not among them)."""
    return sorted({content for cut in cuts for content in cut.contents if content is not None})


def student_loads(grading, contents: list) -> str | None:
    """Load each content with the student's load_checkpoint (one process); None if each matches the reference."""
    if not contents:
        return None
    names = [f"power-cut/state-{number}.json" for number in range(len(contents))]
    steps = [{"kind": "call", "name": "load_checkpoint", "args": [{"$path": name}], "kwargs": {},
              "batch": "power_cut"} for name in names]
    outcome = grading.outcome("power_cut_loads", Scenario("power_cut_loads", steps, files=dict(zip(names, contents)),
                                                         independent_steps=True))
    for index, content in enumerate(contents):
        expected, _ = reference_load(grading.reference, content)
        step = outcome.steps[index]
        if step["status"] != StepStatus.RETURNED or not same(step.get("value"), expected):
            got = (f"返回了 {short(step.get('value'), 60)}" if step["status"] == StepStatus.RETURNED
                   else f"抛出了 {(step.get('error') or {}).get('type', step['status'])}")
            return (f"断电后 path 上留下的是一份完整的检查点（{short(json.loads(content), 60)}），"
                    f"你的 load_checkpoint 读它却{got}")
    return None
