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
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.contract import without_extra
from autograder.crash_states import FileSystem
from autograder.fs_trace import DELETED
from autograder.protocol import StepStatus
from autograder.sandbox import Scenario, scratch_folder

from .helpers import FORMAT_ADVICE, KEEP_CHECKPOINT_ADVICE, format_said, problem, same, short

FILE_SYNC_ADVICE = ("临时文件写完要 flush 并 os.fsync（或者用 O_SYNC / O_DSYNC 打开它）之后再改名："
                    "断电时，还没落盘的内容会丢，改名却可能已经生效")
FOLDER_SYNC_ADVICE = "改名之后还要 fsync 所在的文件夹（os.open 文件夹再 os.fsync）：改名记在目录里，目录落盘了改名才扛得住断电"
OTHER_FOLDER_ADVICE = ("改名之后 fsync 的文件夹不是 path 所在的那一个（比如 os.open(\".\") 打开的是当前文件夹）："
                      "改名记在目标文件所在文件夹的目录里，要 fsync 的是 os.path.dirname(path)"
                      "（只有文件名、dirname 是空字符串时才是当前文件夹）")
NO_DELETE_ADVICE = "不要先删掉旧的检查点再改名：os.replace 本身就会原子地把旧文件换掉，中间没有「没有检查点」的时刻"
IN_PLACE_ADVICE = "不要直接写目标文件：先写同一文件夹里的临时文件，落盘之后再用 os.replace 换上去"
MOVED_ADVICE = ("你的代码先写了另一个文件夹里的 {}，再直接写 path：临时文件和 path 不在同一个文件夹（常常也不在同一个文件系统）时，"
                "shutil.move 这类工具会退化成「复制再删除」，复制就是直接写目标文件，os.replace 则直接报错。"
                "临时文件要建在 path 所在的文件夹里（tempfile.mkstemp(dir=...)），落盘之后再用 os.replace 换上去")


@dataclass
class Save:
    """One checked step: the checkpoint before it (None: no file) and the state it was asked to save."""
    step: int
    old: object
    new: dict
    what: str  # how the feedback names this save
    made_to_fail: bool = False  # the grader fills the disk: whether it reports that is test_atomic's to judge


@dataclass
class Cut:
    """A power cut at one moment: what may be at the path, and what is allowed there."""
    save: Save
    when: str
    contents: set
    allowed: tuple
    ops: frozenset  # the ops of the save's recorded calls up to this moment (for the advice)
    calls: list  # the save's recorded calls, shared by its cuts (not a copy each)
    seen: int  # how many of them came before this moment


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
             "seek": "移动读写位置", "mkdir": "建文件夹", "rmdir": "删文件夹",
             "mknod": "建空文件或符号链接"}
    return "sync()" if op == "sync" else f"{names.get(op, op)} {path}"


def file_system(files: dict) -> FileSystem:
    """The model for these files; on Windows (where a folder cannot be fsynced) a rename counts as made."""
    return FileSystem(files, names_need_folder_fsync=os.name != "nt")


def files_given(outcome) -> dict:
    """The scenario's files, by their paths as the student's code saw them."""
    return {os.path.join(outcome.workdir, name): data if isinstance(data, bytes) else data.encode("utf-8")
            for name, data in outcome.scenario.files.items()}


def killed_files(outcome, points: list) -> list:
    """For each index `last` in `points` (in order), {relative path: content} of the working folder as a kill right
    after fs_events[last] leaves it: a process kill loses nothing the kernel has, and a file with no name left is
    gone with the process."""
    fs = file_system(files_given(outcome))
    workdir = outcome.workdir.rstrip("/") + "/"
    left, done = [], 0
    for last in points:
        for event in outcome.fs_events[done:last + 1]:
            fs.apply(event)
        done = last + 1
        left.append({path[len(workdir):]: fs.content(path) for path in fs.names
                     if path.startswith(workdir) and DELETED not in path})
    return left


def step_of(outcome, record: dict) -> int:
    """The step whose call was running when strace logged `record`: strace cannot tell one process's steps apart and
    names them all by the batch's first (autograder.sandbox), but each step's start is known (Outcome.started_at,
    where strace's log ended when the step began). A record whose line ended by then is an earlier step's."""
    owner, steps = record["step"], outcome.scenario.steps
    for later in range(owner + 1, len(steps)):
        began = outcome.started_at[later] if later < len(outcome.started_at) else None
        if steps[later].get("batch") is None or steps[later].get("batch") != steps[owner].get("batch") \
                or began is None or record["at"] <= began:
            break
        owner = later
    return owner


def steps_told_apart(outcome):
    """`outcome` with each file-system call of a batch given to the step whose call it came in (`step_of`)."""
    return replace(outcome, fs_events=[{**record, "step": step_of(outcome, record)} for record in outcome.fs_events])


def power_cuts(outcome, saves: list) -> list:
    """The cuts during and right after each save in `saves` (Save objects), in the order of the calls; and after
    each call that a thread or process the save left behind made once it had returned."""
    workdir = outcome.workdir
    target = os.path.join(workdir, outcome.scenario.meta["file"])
    fs = file_system(files_given(outcome))
    by_step = {save.step: save for save in saves}
    ended = {}  # step -> the cut at the moment its save returned
    cuts, ops, calls = [], {save.step: frozenset() for save in saves}, {save.step: [] for save in saves}
    events = list(outcome.fs_events)
    for number, record in enumerate(events):
        save = by_step.get(record["step"])
        if save is not None and save.step not in ended and _after_return(outcome, record):
            ended[save.step] = _returned(outcome, save, fs.after_power_cut(target), ops[save.step], calls[save.step])
            cuts.append(ended[save.step])
        fs.apply(record)
        if save is None:
            continue
        if record["op"] not in ops[save.step]:
            ops[save.step] |= {record["op"]}
        calls[save.step].append(record)
        seen = len(calls[save.step])
        following = events[number + 1] if number + 1 < len(events) else None
        if save.step in ended and not run_goes_on(record, following):
            cuts.append(Cut(save, f"在 save_checkpoint 返回之后，它留下的线程或进程「{describe(record, workdir)}」之后",
                            fs.after_power_cut(target), ended[save.step].allowed, ops[save.step], calls[save.step], seen))
        elif not run_goes_on(record, following):
            cuts.append(Cut(save, f"在「{describe(record, workdir)}」之后", fs.after_power_cut(target),
                            (save.old, save.new), ops[save.step], calls[save.step], seen))
        if following is None or following["step"] != record["step"]:
            by_step.pop(save.step)
            if save.step not in ended:
                cuts.append(_returned(outcome, save, fs.after_power_cut(target), ops[save.step], calls[save.step]))
    for save in by_step.values():  # a save that touched no file at all
        cuts.append(_returned(outcome, save, fs.after_power_cut(target), frozenset(), []))
    return cuts


def run_goes_on(record: dict, following: dict | None) -> bool:
    """Whether `following`, the next recorded call, writes on to the file `record` wrote to (or moved in), in the
    same step: a power cut inside such a run leaves a prefix of its writes, and the cut after the run's last call
    tries prefixes of all of them. Judging only there keeps thousands of small writes (pwrite out of order, which
    fs_trace cannot merge) from costing the grader a rebuild of the file at each one."""
    return (following is not None and following["step"] == record["step"]
            and record["op"] in ("write", "seek") and following["op"] in ("write", "seek")
            and following.get("path") == record.get("path"))


def _after_return(outcome, record) -> bool:
    """Whether the step had reported back (its function returned or raised) before this call of it."""
    returned_at = outcome.returned_at[record["step"]] if record["step"] < len(outcome.returned_at) else None
    return returned_at is not None and record["at"] > returned_at


def _returned(outcome, save: Save, contents: set, ops: frozenset, calls: list) -> Cut:
    returned = outcome.steps[save.step]["status"] == StepStatus.RETURNED and not save.made_to_fail
    allowed = (save.new,) if returned else (save.old, save.new)
    return Cut(save, "在 save_checkpoint 返回之后" if returned else "在这次保存结束之后", contents, allowed, ops,
               calls, len(calls))


def reference_load(reference, content: bytes | None, known: dict | None = None):
    """(state, None) as the reference's load_checkpoint reads `content`, or (None, its error); `known` caches."""
    if known is not None:
        if content not in known:
            known[content] = reference_load(reference, content)
        return known[content]
    if content is None:
        return None, None
    with scratch_folder("crash") as folder:
        path = Path(folder) / "checkpoint.json"
        path.write_bytes(content)
        try:
            return reference.load_checkpoint(path), None
        except Exception as exc:  # noqa: BLE001 (any error is a state that does not load)
            return None, exc


def what_is_there(content: bytes | None, state, error, old) -> str:
    """What a power cut left at the path, in the student's terms; `old`: the checkpoint before (None: none)."""
    said = format_said(content) if error is not None else None
    if said:
        return f"是一份课程的 load_checkpoint 读不了的文件（{len(content)} 字节，{said}）"
    if content is None:
        return "没有检查点文件" + ("（原来那一份不见了）" if old is not None else "")
    if error is None:
        return "还是上一份检查点" if same(state, old) else f"是另一份检查点（{short(state, 60)}）"
    if not content.strip(b"\0 \n"):
        return f"是一个{'空' if not content else '全是空白或零字节的'}文件（{len(content)} 字节）"
    return f"是读不出来的半截文件（{len(content)} 字节，load_checkpoint 抛出 {type(error).__name__}）"


def advice(content, error, ops: frozenset, calls: list) -> str:
    if error is not None and format_said(content):
        return FORMAT_ADVICE
    if content is None:
        return NO_DELETE_ADVICE if "unlink" in ops else FOLDER_SYNC_ADVICE
    if error is None:
        return OTHER_FOLDER_ADVICE if _other_folder_synced(calls) else FOLDER_SYNC_ADVICE
    if "rename" not in ops:
        elsewhere = _written_elsewhere(calls)
        return MOVED_ADVICE.format(elsewhere[0]) if elsewhere else IN_PLACE_ADVICE
    return FILE_SYNC_ADVICE


def _other_folder_synced(calls: list) -> bool:
    """Whether, after its last rename, the save fsynced a folder (a path it neither wrote nor renamed), but never
    the folder the file was renamed into: os.open(".") when path is in another folder."""
    renames = [number for number, e in enumerate(calls) if e["op"] == "rename"]
    if not renames:
        return False
    folder = os.path.dirname(calls[renames[-1]].get("dst") or "")
    files = {e.get(key) for e in calls if e["op"] in ("write", "rename") for key in ("path", "dst")}
    synced = {e.get("path") for e in calls[renames[-1]:] if e["op"] in ("fsync", "fdatasync")} - files
    return bool(synced) and folder not in synced


def _written_elsewhere(calls: list) -> list:
    """Files the save wrote (not appended to, as a log is) in another folder than the file it then overwrote in
    place: a temporary file made elsewhere and copied over the checkpoint (shutil.move across file systems)."""
    overwritten = next((e["path"] for e in calls if e["op"] == "open" and "O_TRUNC" in str(e.get("flags"))), None)
    if overwritten is None:
        return []
    before = calls[:next(i for i, e in enumerate(calls) if e["op"] == "open" and e["path"] == overwritten)]
    appended = {e["path"] for e in before if e["op"] == "open" and "O_APPEND" in str(e.get("flags"))}
    return sorted({e["path"] for e in before if e["op"] == "write" and e["path"] not in appended
                   and os.path.dirname(e["path"]) != os.path.dirname(overwritten)})


def first_failure(cuts: list, reference) -> str | None:
    """The feedback for the first cut that leaves something not allowed, or None when every cut is fine."""
    for cut in cuts:
        for content in sorted(cut.contents, key=lambda c: (c is not None, len(c or b""), c or b"")):
            state, error = reference_load(reference, content)
            if error is None and any(same(without_extra(state), allowed) for allowed in cut.allowed):
                continue
            unseen = sized_without_writes(cut.calls[:cut.seen])
            if unseen and content is not None and not content.strip(b"\0"):
                return (f"模拟断电：{cut.save.what}，{cut.when}断电，评分器的断电模型算出 path 上是一个全是零字节的文件"
                        f"（{len(content)} 字节）。这不一定是真的：评分器看到改名成 path 的临时文件的长度是用 ftruncate 设的，"
                        "却没有看到写进它的内容——它只记 write 这类系统调用，经 mmap 写进去的内容（连同 mm.flush）它看不见。"
                        "请用 write 写临时文件（with os.fdopen(fd, \"w\") as f: f.write(...)，或 os.write），再 flush、"
                        "os.fsync、改名")
            return (f"模拟断电：{cut.save.what}，{cut.when}断电，path 上{what_is_there(content, state, error, cut.save.old)}。"
                    f"{advice(content, error, cut.ops, cut.calls[:cut.seen])}")
    return None


def sized_without_writes(calls: list) -> list:
    """The files the save renamed whose length came from ftruncate and which no recorded write reached: written
    through mmap, which strace does not record (fs_trace traces no mmap or msync)."""
    renamed = [e["path"] for e in calls if e["op"] == "rename"]
    return [name for name in renamed if any(e["op"] == "truncate" and e["path"] == name for e in calls)
            and not any(e["op"] == "write" and e["path"] == name for e in calls)]


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
        if step["status"] not in (StepStatus.RETURNED, StepStatus.RAISED):  # not defined, hung, died
            return "读断电后留下的检查点时：" + problem(outcome, index, "load_checkpoint")
        if step["status"] != StepStatus.RETURNED or not same(without_extra(step.get("value")), without_extra(expected)):
            got = (f"返回了 {short(step.get('value'), 60)}" if step["status"] == StepStatus.RETURNED
                   else f"抛出了 {step['error']['type']}")
            return (f"断电后 path 上留下的是一份完整的检查点（{short(json.loads(content), 60)}），"
                    f"你的 load_checkpoint 读它却{got}")
    return None


def _moments(outcome, step: int) -> list:
    """(at, order, kind, record) of one step, in the order they happened: its file-system calls (a call whose
    line ends at or before where the log ended when the grader got a request came first), and the grader's
    stand-in saves, model calls and tool calls (in the order the grader got them)."""
    moments = [(e["at"], 0, "call", e) for e in outcome.fs_events if e["step"] == step]
    moments += [(c["at"], c["seq"], "save", c) for c in outcome.standin_calls
                if c.get("step") == step and c.get("name") == "save_checkpoint" and "state" in c]
    moments += [(c["at"], c["seq"], "model", c) for c in outcome.model_calls if c["step"] == step]
    moments += [(c["at"], c["seq"], "tool", c) for c in outcome.tool_calls if c["step"] == step]
    if step < len(outcome.returned_at) and outcome.returned_at[step] is not None:  # after the calls up to then
        moments.append((outcome.returned_at[step], float("inf"), "returned", {}))
    return sorted(moments, key=lambda moment: moment[:2])


def _snapshot_state(record):
    snapshot = record.get("snapshot") or {}
    return snapshot.get("state") if "state" in snapshot else None


def run_agent_problem(outcome, reference, step: int = 0) -> str | None:
    """Power cuts while run_agent runs (step `step`), or None when every one leaves a whole checkpoint.

    Between the grader's moments any complete checkpoint may be on disk (none only before the first
    save); at each tool call and model call the checkpoint must already be on disk, durably, as the
    grader read it then (save point A before the tool, B before the model); once run_agent returned,
    the one it left. The grader's stand-in save_checkpoint counts as one durable, atomic replacement.
    """
    workdir = outcome.workdir
    target = os.path.join(workdir, outcome.scenario.meta["file"])
    files = files_given(outcome)
    fs = file_system(files)
    known = {}
    previous, _ = reference_load(reference, files.get(target), known)
    saved = previous is not None  # from the first checkpoint on, one must always be there
    end = outcome.files_after.get(outcome.scenario.meta["file"])
    final = [(float("inf"), 0, "end", {"content": None if end is None else end.encode("utf-8")})]
    for _, _, kind, record in _moments(outcome, step) + final:
        expected = None
        if kind == "call":
            fs.apply(record)
        elif kind == "save":
            fs.apply({"op": "replace", "path": target,
                      "data": json.dumps(record["state"], ensure_ascii=False).encode("utf-8")})
            saved = True
        elif kind in ("end", "returned"):
            expected = reference_load(reference, final[0][3]["content"], known)[0]
        else:
            expected = _snapshot_state(record)
            saved = saved or expected is not None
        for content in sorted(fs.after_power_cut(target), key=lambda c: (c is not None, c or b"")):
            state, error = reference_load(reference, content, known)
            if kind in ("model", "tool", "returned", "end") and error is None and same(state, expected):
                continue
            if kind in ("call", "save") and error is None and (state is not None or not saved):
                continue
            there = what_is_there(content, state, error, previous)
            if error is None and state is not None and kind != "call":
                there = "还是更早的一份检查点，不是这一刻已经存下的那一份（断电重启后会从更早的一步接着做）"
            if kind == "tool":
                return (f"模拟断电：run_agent 执行工具 {record.get('name')} 的那一刻断电，path 上{there}。"
                        "存档点 A 要在执行工具之前完整地、持久地存好（用 save_checkpoint，它先写临时文件再改名并 fsync）")
            if kind == "model":
                return (f"模拟断电：run_agent 调用模型的那一刻断电，path 上{there}。"
                        "存档点 B（以及恢复时对账之后的那一次）要在调用模型之前完整地、持久地存好（用 save_checkpoint）")
            if kind == "returned":
                return (f"模拟断电：run_agent 返回的那一刻断电，path 上{there}。返回之前，最后一次存档就要完整地、"
                        "持久地存好（用 save_checkpoint）；返回之后也不要留下还在改检查点的线程或进程")
            if kind == "end":
                return f"模拟断电：run_agent 返回之后断电，path 上{there}。最后一次存档也要完整地、持久地存好（用 save_checkpoint）"
            if content is None and end is None and record["op"] in ("unlink", "rename") and record.get("path") == target:
                return (f"run_agent 删掉（或改名挪走）了 path 上的检查点（「{describe(record, workdir)}」），"
                        f"之后 path 上一直没有检查点。{KEEP_CHECKPOINT_ADVICE}")
            return (f"模拟断电：run_agent 运行中，在「{describe(record, workdir)}」之后断电，path 上{there}。"
                    "检查点要整份地换上去（save_checkpoint），不能直接改写 path 上的文件")
    return None
