"""save_checkpoint / load_checkpoint (test_save_load, 4 points)."""
import json
import os
from pathlib import Path

import pytest

from autograder.child import python_value
from autograder.contract import checkpoint_differences, error_kind, extra_fields, without_extra
from autograder.protocol import StepStatus
from autograder.sandbox import Scenario, scratch_folder
from course.checks import LONG_CHECKPOINT_BYTES

from .crashes import (Save, describe, files_to_load, first_failure, killed_files, power_cuts, reference_load,
                      steps_told_apart, student_loads)
from .helpers import (FORMAT_ADVICE, as_the_step, as_user_sees, begins_a_checkpoint, expect, fail, format_said, is_chinese,
                      mentions_number, on_disk, problem, returned, same, short, stray_files, without_paths)
from .scenarios import FOLDER, call, path as at_path

GRADE = "test_save_load"
LOAD_ERRORS = {  # the kind of broken file (autograder.hidden_tests.generated.BROKEN_KINDS) -> how the feedback names it
    "truncated": "文件不是合法的 JSON（只剩半截）时",
    "trailing_data": "文件里一个完整的检查点后面还有别的内容（旧文件没截掉的尾巴、一串零字节）时",
    "empty": "文件是空的（或只有空白、零字节）时",
    "higher": "版本比代码认的高时",
    "lower": "版本比代码认的低（或是 null）时",
    "text_version": "版本写成了字符串（例如 \"1\"）时",
    "number_text": "版本写成了字符串、而且能读成数字 1（例如 \" 1\"、\"1.0\"）时",
    "not_utf8": "文件不是 UTF-8 编码（例如用 GBK 存的）时",
    "not_object": "文件是合法的 JSON、但不是一个对象时",
    "falsy": "文件是合法的 JSON、但是空的或不是一个对象（{}、[]、null、0、false 这类：它不是「没有检查点」）时",
    "missing_fields": "文件里没有 version 字段时",
    "folder": "path 上是一个文件夹时",
    "unreadable": "文件存在、但没有读权限时",
}
BYSTANDERS = {  # the kind of file of others beside the checkpoint (Draw.bystanders) -> its name in the feedback
    "other_task": "另一个任务正在写的临时文件",
    "user": "用户自己的文件",
}
MAX_KILLS = 4  # the distinct moments inside a save at which the grader kills it and saves again
KILL_ADVICE = ("进程被杀（OOM Killer、kill -9、断电）时，谁也来不及删保存用的临时文件：上次留下的残骸不能让以后的保存失败。"
               "用 tempfile.mkstemp 每次取一个不会撞名的临时文件；固定名字的临时文件不能用 O_EXCL（open(..., \"x\")）新建")
UNSAVED = {  # the kind of value JSON cannot hold (autograder.hidden_tests.generated.UNJSONABLE) -> its name
    "set": "一个 set（集合）",
    "bytes": "一段 bytes（字节串）",
    "tuple_key": "一个键是 tuple 的 dict",
    "sdk_object": "一个 SDK 的对象（没有转成 dict 的 TextBlock）",
}


def reference_outcome(grading, content) -> tuple:
    """("value_error" | "os_error" | "returned", detail): what the reference's load_checkpoint does with it,
    under a step's rules (a FileData's mode bits bind)."""
    with scratch_folder("load") as folder:
        path = Path(folder) / "checkpoint.json"
        if content == FOLDER:
            path.mkdir()
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
            path.chmod(getattr(content, "mode", 0o644))
        try:
            return "returned", as_the_step(grading, grading.reference.load_checkpoint, path)
        except (ValueError, OSError) as exc:
            return error_kind(exc), (str(exc) if isinstance(exc, ValueError) else type(exc).__name__)
        finally:
            path.chmod(0o700)  # so that the folder can go


def reference_save(reference, previous: str, marked: dict) -> tuple:
    """(raised, the text at the path after): the reference's save_checkpoint of the state `marked` (with
    child.python_value's marks) over the checkpoint `previous`."""
    with scratch_folder("save") as folder:
        path = Path(folder) / "checkpoint.json"
        path.write_text(previous, encoding="utf-8")
        try:
            reference.save_checkpoint(python_value(marked["$python"]), path)
        except Exception:  # noqa: BLE001 (whatever it raises, it raised)
            return True, path.read_text(encoding="utf-8")
        return False, path.read_text(encoding="utf-8")


def check_no_stray_files(outcome, index, keep, previous, when, advice):
    """No file beside `keep` after step `index`, nor a checkpoint's JSON anywhere; one that holds `previous` (the
    checkpoint at the path before the save) is named as the copy of it that it is, whatever the code calls it."""
    left = save_leftovers(outcome, index, keep)
    copies = [name for name in left if same(_json_or_none(outcome.files_after.get(name)), previous)]
    expect(not copies, f"{when}，path 旁边多了 {copies[0] if copies else ''}：它是上一份检查点的副本（保存时复制出来的备份）。"
                       "save_checkpoint 只该留下 path 这一个文件：os.replace 原子地换上新的一份，用不着备份；"
                       "留着它，检查点读不出来时就会有人（或代码）改读这份更早的，而读不出来的检查点需要人来看一眼")
    expect(not left, f"{when}，文件夹里留下了多余的文件 {short(left)}：{stray_advice(outcome, left, advice)}")


def save_leftovers(outcome, index: int, target: str) -> list:
    """The files the save to `target` at step `index` left and should not have: any beside `target` (its folder holds
    the checkpoint alone, as the notebook's check asks) and, anywhere, a checkpoint's JSON whole or part-way (a
    temporary copy). A log in another folder is no leftover of the save: prints and logs are not graded."""
    folder = os.path.dirname(target)
    return [name for name in stray_files(outcome, index, [target])
            if os.path.dirname(name) == folder or begins_a_checkpoint(outcome.files_after.get(name))]


def stray_advice(outcome, left: list, advice: str) -> str:
    """What to do about the files `left` beside the path: `advice` (about a temporary file), said for an empty file
    too, which may as well be a lock file: it is no checkpoint, and still one file too many."""
    if any(outcome.files_after.get(name) != "" for name in left):
        return advice
    return (f"{'它是空文件' if len(left) == 1 else '它们都是空文件'}，不是检查点，也没有改名成 path。如果是临时文件：{advice}。"
            "如果是锁文件、标记文件，也不要留下：保存之后文件夹里只该有 path 这一个文件（notebook 里的可见检查也这样要求），"
            "重启、清理和别的程序才不用猜哪个是检查点。要防两个进程同时保存，可以直接对 path 所在的文件夹加锁"
            "（fcntl.flock 用在 os.open(文件夹, os.O_RDONLY) 得到的描述符上），不用另建文件")


def _json_or_none(text):
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return None


@pytest.mark.grade(GRADE, 1)
def test_round_trip(grading):
    """保存后原样读回（六个字段都一样），文件夹里不留临时文件、别的文件原样不动，也不留下打开的文件描述符；文件不存在时返回 None，很长的检查点也整个读出来；同一个进程里经相对路径存取多次、两次保存之间文件被改过，读到、存下的都是此刻的那一份"""
    outcome = grading.outcome("save_roundtrip")
    state, name = outcome.scenario.meta["state"], outcome.scenario.meta["file"]
    returned(outcome, 0, "save_checkpoint(state, path)")
    saved, why = on_disk(outcome, name)
    expect(why is None, f"save_checkpoint 保存之后：{why}")
    wrong = checkpoint_differences(saved, state)
    expect(not wrong, f"save_checkpoint 写进文件的内容和传给它的 state 不一样（{'、'.join(wrong)}）：要原样写下每个字段")
    check_no_stray_files(outcome, 0, name, outcome.scenario.meta["previous"], "一次成功的保存之后",
                         "临时文件应该用 os.replace 改名成目标文件，而不是复制过去、把它留在原地")
    loaded = returned(outcome, 1, "load_checkpoint(path)")
    wrong = checkpoint_differences(loaded, state)
    expect(not wrong, f"load_checkpoint 读回来的内容和保存的 state 不一样（{'、'.join(wrong)}）")
    nothing = returned(outcome, 2, "对不存在的文件调用 load_checkpoint")
    expect(nothing is None, f"文件不存在时 load_checkpoint 应该返回 None（表示这是新任务），你的函数返回了 {short(nothing)}")
    check_long_load(outcome)
    default = grading.outcome("save_default_path")
    returned(default, 0, "save_checkpoint(state)（默认的 CHECKPOINT_PATH，只有文件名，没有文件夹）")
    wrong = checkpoint_differences(returned(default, 1, "load_checkpoint()（默认的 CHECKPOINT_PATH）"), state)
    expect(not wrong, f"存到默认的 CHECKPOINT_PATH 再读回来，内容和保存的 state 不一样（{'、'.join(wrong)}）")
    check_bystanders(outcome)
    check_bystanders(default)
    check_reloads(grading)
    check_saved_again(grading)
    check_no_leaks(grading)


def check_long_load(outcome):
    """A long conversation's checkpoint is loaded whole."""
    what = f"对一份超过 {LONG_CHECKPOINT_BYTES // 1024} KB 的检查点（长对话：模型读过一个很长的文件）调用 load_checkpoint"
    advice = "合法的检查点多大都要整个读出来：不能只读前一部分，也不能因为它大就拒收（对话越长，检查点越大）"
    message = problem(outcome, 3, what)
    expect(message is None, f"{message}。{advice}")
    wrong = checkpoint_differences(outcome.steps[3]["value"], outcome.scenario.meta["long"])
    expect(not wrong, f"{what}，读出来的和文件里的不一样（{'、'.join(wrong)}）。{advice}")


def check_bystanders(outcome):
    """The files of others in the checkpoint's folder are as they were: a save touches its own temporary file and
    the checkpoint, nothing else."""
    for kind, name in outcome.scenario.meta["bystanders"].items():
        after = outcome.files_after.get(name)
        expect(after == outcome.scenario.files[name],
               f"保存之后，path 所在的文件夹里原有的 {name}（{BYSTANDERS[kind]}）被你的 save_checkpoint "
               f"{'删掉' if after is None else '改写'}了：保存只该碰它自己的临时文件和 path。同一个文件夹里别的 .tmp 文件"
               "可能是另一个任务正在保存的临时文件（删掉它，那边的 os.replace 就会失败），也可能是用户自己的文件；"
               "上次崩溃留下的临时文件无害，用不着去扫")


def reference_values(reference, steps: list, changes: dict | None = None) -> list:
    """What the reference's save_checkpoint and load_checkpoint return on `steps` (calls on $path arguments), run
    in order in a folder of its own, with the grader's `changes` between them (Scenario.files_before's, by position
    in `steps`: text, or None for a file removed): at each load, the state on disk at that moment."""
    with scratch_folder("reload") as folder:
        values = []
        for number, step in enumerate(steps):
            for relative, content in (changes or {}).get(number, {}).items():
                changed = Path(folder) / relative
                if content is None:
                    changed.unlink(missing_ok=True)
                else:
                    changed.write_text(content, encoding="utf-8")
            args = [Path(folder) / arg["$path"] if isinstance(arg, dict) and "$path" in arg else arg
                    for arg in step["args"]]
            args[-1].parent.mkdir(parents=True, exist_ok=True)
            values.append(getattr(reference, step["name"])(*args))
        return values


def differing(value, wanted) -> str:
    """The fields in which two checkpoints differ, for the feedback ("" unless both are dicts)."""
    both = isinstance(value, dict) and isinstance(wanted, dict)
    return f"（不一样的字段：{'、'.join(checkpoint_differences(value, wanted))}）" if both else ""


def check_reloads(grading):
    """Loads between saves, in one process: each gives the state on disk at that moment, as the reference's does."""
    outcome = grading.outcome("save_reload")
    steps = outcome.scenario.steps[:outcome.scenario.meta["reloads"]]
    done = []  # the calls so far, as the feedback names them
    for index, (step, wanted) in enumerate(zip(steps, reference_values(grading.reference, steps))):
        call = "save_checkpoint(新的 state, path)" if step["name"] == "save_checkpoint" else "load_checkpoint(path)"
        value = returned(outcome, index, call)
        moved = folder_left(outcome, index)
        expect(moved is None,
               f"在同一个进程里依次调用 {' → '.join(done + [call])}：这次 {step['name']} 把进程的当前文件夹换成了 "
               f"{moved}（os.chdir），返回时没有换回来。之后传进来的相对路径（同一个 {step['args'][-1]['$path']}、默认的 "
               "checkpoint.json）都从那里算起，指向了别处：下一次保存存进了别的文件夹（或者抛 FileNotFoundError），"
               "load_checkpoint 在原处找不到检查点，重启后任务从头再来。不要改当前文件夹：fsync 文件夹就用 "
               "os.open(文件夹, os.O_RDONLY) 打开它；非要切换，也要在 finally 里切回来（contextlib.chdir）")
        if step["name"] == "load_checkpoint":
            expect(same(value, wanted),
                   f"在同一个进程里依次调用 {' → '.join(done + [call])}：最后这次 load_checkpoint 应该读到 path 上此刻的"
                   f"{'检查点 ' + short(wanted, 60) if wanted is not None else '内容（还没有文件，返回 None）'}，"
                   f"你的函数返回了 {short(value, 60)}{differing(value, wanted)}。load_checkpoint 每次都要重新读文件，不能留着读过的结果"
                   "（例如 functools.lru_cache）：存过新的检查点、或者调用方改过上次返回的 dict（run_agent 会追加消息、"
                   "增加 turns）之后，留着的就不是磁盘上的那一份了")
        done.append(call + ("（调用方随后改动了它返回的 dict）" if step.get("spoil_after") else ""))


def folder_left(outcome, index: int) -> str | None:
    """The current folder step `index` left its process in (relative to the working folder, "/" for one outside
    it), when its call changed it (os.chdir) and did not change it back; None otherwise."""
    began, ended = outcome.started_at[index], outcome.returned_at[index]
    moves = [e["path"] for e in outcome.fs_events if e["op"] == "chdir" and began is not None and e["at"] > began
             and (ended is None or e["at"] <= ended)]
    if not moves or moves[-1] == outcome.workdir:
        return None
    inside = moves[-1].startswith(outcome.workdir + "/")
    return os.path.relpath(moves[-1], outcome.workdir) if inside else moves[-1]


def check_saved_again(grading):
    """The same state saved twice to a path in one process, its file damaged in place or removed in between (by the
    grader, as the notebook's demo damages one): after the second save the path holds the state, as the reference's
    save leaves it."""
    outcome = grading.outcome("save_reload")
    first = outcome.scenario.meta["reloads"]
    for number, (kind, name) in enumerate(outcome.scenario.meta["resaved"].items()):
        index = first + 2 * number
        steps = outcome.scenario.steps[index:index + 2] + [call("load_checkpoint", at_path(name))]
        change = outcome.scenario.files_before[index + 1]
        wanted = reference_values(grading.reference, steps, {1: change})[-1]
        what = "写坏了（只剩半截）" if kind == "damaged" else "删掉了"
        for step in (index, index + 1):
            message = problem(outcome, step, "save_checkpoint(state, path)")
            expect(message is None, f"同一个进程里存过 path 之后，文件被{what}，再保存同一个 state：{message}")
        left = outcome.files_after.get(name)
        loaded, _ = reference_load(grading.reference, None if left is None else left.encode("utf-8"))
        there = "没有文件" if left is None else "还是那份坏文件" if left == change[name] else f"是 {short(left, 60)}"
        expect(same(loaded, wanted),
               f"save_checkpoint(state, path) 存好之后，path 上的文件被{what}（别的程序、用户、一次崩溃都会这样），"
               f"同一个进程再调用一次 save_checkpoint(同一个 state, path)：它返回之后 path 上{there}，应该是这份 state。"
               "每次保存都要真的把 state 写进 path：不能凭内存里记着的「上次存过一模一样的内容」就跳过，"
               "磁盘上的文件可能早就变了（notebook 的原子写入演示就是先存 cpB、把它写坏、再存一次 cpB）")


def check_no_leaks(grading):
    """The saves of one process leave no descriptor open behind them, whatever it was opened for: a save to a path
    saved to before in the process opens none that it never closes (one kept for good, per folder or at all, is
    opened by the first save there)."""
    outcome = grading.outcome("save_reload")
    saves = [index for index, step in enumerate(outcome.scenario.steps)
             if step.get("batch") == "saves" and step["name"] == "save_checkpoint"]
    again = [index for number, index in enumerate(saves)
             if outcome.scenario.steps[index]["args"][-1] in [outcome.scenario.steps[i]["args"][-1]
                                                             for i in saves[:number]]]
    left = [record for index, record in descriptors_left_open(outcome, 0) if index in again]
    expect(2 * len(left) < len(again),
           f"在同一个进程里保存了 {len(saves)} 次（其中 {len(again)} 次存到之前存过的 path），这些再次保存打开的 {len(left)} 个"
           f"文件描述符到最后也没有关上（第一个：「{describe(left[0], outcome.workdir) if left else ''}」）："
           "每保存一次就漏掉一个，一个进程跑上几百轮就会用完描述符（EMFILE），存不了档了。"
           + (leak_advice(outcome, left[0]) if left else ""))


def leak_advice(outcome, record: dict) -> str:
    """How not to leak the descriptor `record` opened: a folder's (fsynced), a file's opened to write or to read."""
    folder = record["path"] + "/"
    if "O_DIRECTORY" in str(record.get("flags")) or any(str(e.get("path")).startswith(folder)
                                                        or str(e.get("dst")).startswith(folder)
                                                        for e in outcome.fs_events):
        return ("漏掉的是 path 所在的文件夹的描述符：os.open(文件夹, os.O_RDONLY) 得到的描述符 fsync 之后要 os.close 它"
                "（try/finally 里关上）；os.fsync(os.open(...)) 一行写完，这个描述符就再也关不上了")
    if not any(flag in str(record.get("flags")) for flag in ("O_WRONLY", "O_RDWR")):
        return "打开来读的文件也要关上：with open(...) as f: …，或者 Path.read_text"
    if is_temporary_file(outcome, record):
        return ("tempfile.mkstemp 返回的是已经打开的描述符：用它来写（with os.fdopen(fd, \"w\") as f: …，结束时会关上），"
                "不要按名字再打开一次、把它晾在那里")
    return "打开的文件用完要关上：用 with 打开（with open(...) as f: …），os.open 得到的描述符用完 os.close（try/finally 里关上）"


def is_temporary_file(outcome, record: dict) -> bool:
    """Whether the file `record` opened became a saved file (renamed or linked to it), or was written and removed
    as a failed save's temporary file is: a lock file is neither."""
    later = [e for e in outcome.fs_events if e.get("path") == record["path"] and e["at"] > record["at"]]
    written = [e["at"] for e in later if e["op"] == "write"]
    return any(e["op"] in ("rename", "link") or (e["op"] == "unlink" and written and written[0] < e["at"])
               for e in later)


def descriptors_left_open(outcome, first: int) -> list:
    """(the step it was opened in, the open record) for each descriptor that the process running step `first` and
    the steps batched with it opened after `first` began, to read, write or fsync a folder, and never closed. A number
    opened again was closed in between (by close, or dup2, which strace does not stop at): each save that leaks one
    leaves one more. One closed only once the steps are done (when the kernel shuts down: logging.shutdown closing a
    handler's file, the namespace's garbage collected) stayed open for as long as the kernel ran."""
    began = outcome.started_at[first] if first < len(outcome.started_at) else None
    batch = outcome.scenario.steps[first].get("batch")
    starts = [(at, index) for index, at in enumerate(outcome.started_at) if at is not None and index >= first
              and outcome.scenario.steps[index].get("batch") == batch]
    returns = [at for index, at in enumerate(outcome.returned_at) if index >= first
               and outcome.scenario.steps[index].get("batch") == batch]
    done = max(returns) if returns and None not in returns else None
    opened = {}
    for event in outcome.fs_events:
        if event["step"] != first or (began is not None and event["at"] <= began):
            continue
        if done is not None and event["at"] > done:
            continue
        if event["op"] == "open":
            opened[event.get("fd")] = (max((index for at, index in starts if at < event["at"]), default=first), event)
        elif event["op"] == "close":
            opened.pop(event.get("fd"), None)
    return list(opened.values())


@pytest.mark.grade(GRADE, 1)
def test_load_errors(grading):
    """文件损坏、为空、不是 UTF-8、不是对象、没有版本或版本不符时抛 ValueError，中文信息里写出路径（和两个版本号）；path 上是文件夹、或文件没有读权限时 OSError 照样抛出；坏文件留在原处"""
    outcome = grading.outcome("save_roundtrip")
    meta = outcome.scenario.meta
    for index, (kind, name) in enumerate(meta["broken"].items(), meta["first_broken"]):  # one step per file
        what = LOAD_ERRORS[kind]
        content = meta["damaged"][kind]
        expected, detail = reference_outcome(grading, content)  # the oracle, on the same file
        step = outcome.steps[index]
        if expected == "returned":
            expect(step["status"] == StepStatus.RETURNED and same(step.get("value"), detail),
                   f"{what}，load_checkpoint 应该返回文件里的检查点：" + (problem(outcome, index, "load_checkpoint")
                                                                  or f"你的函数返回了 {short(step.get('value'))}"))
            continue
        wanted = "ValueError" if expected == "value_error" else f"{detail}（OSError 的一种，不能当作文件不存在）"
        if step["status"] == StepStatus.RETURNED:
            fail(f"{what}，load_checkpoint 应该抛 {wanted}，你的函数却返回了 {short(step['value'])}"
                 + ("：只有文件不存在才返回 None，读不了的检查点要让调用方知道" if expected == "os_error" else ""))
        if step["status"] != StepStatus.RAISED:
            fail(f"{what}：" + problem(outcome, index, "load_checkpoint"))
        error = step["error"]
        if expected == "os_error":
            expect(error_kind(error) == "os_error",
                   f"{what}，load_checkpoint 应该让 {wanted} 原样抛出去，你的函数抛的是 {error['type']}")
            continue
        expect(error_kind(error) == "value_error", f"{what}，load_checkpoint 应该抛 ValueError（或它的子类），你的函数抛的是 {error['type']}")
        message = error["message"]
        shown = as_user_sees(message, outcome.workdir)
        expect(os.path.basename(name) in message, f"{what}，报错信息里要写出是哪个文件（路径），你的信息是「{shown}」")
        expect(is_chinese(without_paths(message, outcome.workdir, name), meta["task"]),
               f"{what}，报错信息要用中文写给用户看，你的信息是「{shown}」")
    check_no_older_state(grading)
    future = meta["first_broken"] + list(meta["broken"]).index("higher")
    version = json.loads(meta["damaged"]["higher"])["version"]
    message = without_paths(outcome.steps[future]["error"]["message"], outcome.workdir, meta["broken"]["higher"])
    expect(mentions_number(message, version) and mentions_number(message, 1),
           f"版本不符时，报错信息要写出文件里的版本号（{version}）和代码认的版本号（1），"
           f"你的信息是「{as_user_sees(outcome.steps[future]['error']['message'], outcome.workdir)}」")
    for relative, content in outcome.scenario.files.items():  # reading never moves, deletes or rewrites a file
        if any(relative == name or relative.startswith(name + "/") for name in meta["broken"].values()):
            original = content if isinstance(content, bytes) else content.encode("utf-8")
            expect(outcome.files_after.get(relative) == original.decode("utf-8", errors="replace"),
                   f"load_checkpoint 读过坏掉的检查点之后，文件 {relative} 被移走、删掉或改写了：读检查点不应该动它，"
                   "它是排查问题的证据，也可能还救得回来")


def check_no_older_state(grading):
    """Each kind of broken file, put at a path the student's save_checkpoint saved to twice (whatever backup it
    made is there): load_checkpoint raises where the reference's does, never returns an older checkpoint."""
    outcome = grading.outcome("save_reload")
    meta = outcome.scenario.meta
    for index, kind in enumerate(meta["backed"], meta["first_backed"]):
        expected, _ = reference_outcome(grading, meta["damaged"][kind])
        step = outcome.steps[index]
        older = any(same(step.get("value"), cp) for cp in (meta["previous"], meta["state"]))
        expect(expected == "returned" or step["status"] != StepStatus.RETURNED,
               f"你的 save_checkpoint 在 path 上存过两次检查点之后，path 上的文件坏了（{LOAD_ERRORS[kind].removesuffix('时')}），"
               "load_checkpoint 应该抛出异常，你的函数却返回了"
               + ("更早存下的一份检查点（例如保存时留的备份）" if older else f" {short(step.get('value'), 60)}")
               + "：读不出来的检查点需要人来看一眼，悄悄改读别的，做过的轮次会再做一遍，发过的邮件可能再发一封")


@pytest.mark.grade(GRADE, 1)
def test_atomic(grading):
    """一次写到一半失败的保存（磁盘写满，或 state 里有 JSON 存不了的值）：异常抛出来，上一份检查点完好，文件夹里不留临时文件；保存途中进程被杀，留下的文件不妨碍下一次保存；同一个文件夹里两个任务的保存不共用临时文件"""
    outcome = grading.outcome("save_atomic")
    meta = outcome.scenario.meta
    if problem(outcome, 0, "第一次保存"):
        fail("第一次保存（一份普通的检查点）就失败了：" + problem(outcome, 0, "save_checkpoint"))
    failed_save = outcome.steps[1]
    if failed_save["status"] not in (StepStatus.RETURNED, StepStatus.RAISED):
        fail("第二次保存时磁盘写满了（评分器限制了文件大小），" + problem(outcome, 1, "save_checkpoint"))
    previous, why = on_disk(outcome, meta["file"])
    expect(outcome.files_after.get(meta["file"]) is not None, "一次失败的保存之后，path 上原来的检查点不见了")
    written = format_said(outcome.files_after.get(meta["file"]))
    expect(not (why and written), f"保存之后，path 上的文件{written}，课程的 load_checkpoint 读不了它。{FORMAT_ADVICE}")
    if why:
        writes = [e for e in outcome.fs_events if e.get("step") == 1 and e.get("op") == "write"]
        # a short write nobody wrote after, in a save that returned: the code took it as done. Python's own file
        # objects write the rest (and raise when the disk is full): that save raised, and the hint would be untrue
        short_writes = [e for number, e in enumerate(writes) if failed_save["status"] == StepStatus.RETURNED
                        and e.get("wanted") is not None and e.get("size") is not None and e["size"] < e["wanted"]
                        and not any(later.get("path") == e.get("path") for later in writes[number + 1:])]
        fail("一次写到一半失败的保存把原来的检查点写坏了（文件只剩半截）。" + (
            f"磁盘快满时，os.write 只写进了 {short_writes[0]['size']} 字节（要写 {short_writes[0]['wanted']} 字节）、"
            "返回实际写进的字节数而不报错，你的代码没有看返回值就接着 fsync、改名了：要循环写到全部写完"
            "（或者用 open() 得到的文件对象写，它会写完或抛出异常）" if short_writes else
            "提示：先写同一文件夹里的临时文件，写完再用 os.replace 换上去，不要直接覆盖目标文件"))
    expect(not (set(checkpoint_differences(previous, meta["state"])) - set(extra_fields(previous))),  # added: said once
           "一次失败的保存之后，path 上的检查点不再是上一份完整的检查点")
    expect(failed_save["status"] == StepStatus.RAISED,
           "磁盘写满、保存失败时，save_checkpoint 却正常返回了：异常被吞掉，调用方以为已经存好，"
           "接着去执行工具，崩溃后就会从更早的检查点恢复。保存失败要把异常抛出去（清理临时文件之后 raise）")
    check_no_stray_files(outcome, 1, meta["file"], meta["state"], "一次失败的保存之后",
                         "出错时要先删掉临时文件，再把异常抛出去；用固定名字的临时文件，残骸还会和下一次保存撞在一起")
    check_siblings(outcome, grading.sandbox.student_pid)
    check_unsaved(grading)
    check_save_after_kill(grading)


def check_siblings(outcome, student_pid: int):
    """Two tasks' checkpoints in one folder, each saved by a process of its own: no file renamed into the one path
    during its save has the name of one renamed into the other (a temporary name fixed for the folder rather than for
    the path: two processes saving at once would rename each other's state into place). A name with the process's pid
    in it differs between two processes, though here both are the kernel's one pid."""
    siblings = outcome.scenario.meta["siblings"]
    moved = []
    for step, name in enumerate(siblings, 2):
        if outcome.steps[step]["status"] != StepStatus.RETURNED:
            fail(f"保存同一个文件夹里另一个任务的检查点（{name}）时，" + problem(outcome, step, "save_checkpoint"))
        target = os.path.normpath(os.path.join(outcome.workdir, name))
        began, ended = outcome.started_at[step], outcome.returned_at[step]
        moved.append({e["path"] for e in outcome.fs_events
                      if e["step"] == step and e["op"] == "rename" and e.get("dst") == target
                      and (began is None or e["at"] > began) and (ended is None or e["at"] <= ended)})
    shared = sorted(path for path in moved[0] & moved[1] if str(student_pid) not in os.path.basename(path))
    expect(not shared, f"同一个文件夹里两个任务的检查点（{siblings[0]} 和 {siblings[1]}），各由一个进程保存，两次保存却都把"
                       f"同一个临时文件 {os.path.relpath(shared[0], outcome.workdir) if shared else ''} 改名成检查点："
                       "两个进程同时保存时，一个会把另一个写的内容改名成自己的检查点，另一个的 os.replace 找不到文件。"
                       "临时文件的名字要每次不同（tempfile.mkstemp(dir=path 所在的文件夹)），至少要随 path 不同")


def temporary_elsewhere(outcome, folder: str, target: str) -> str:
    """Why a temporary file in `folder`, renamed to `target` by save step 0, is in the wrong place: another disk may
    hold that folder, unless the save made it inside the target's folder (a new folder is on its parent's disk, and
    the crash-state model takes the rename as durable once the target's folder is fsynced)."""
    place = os.path.dirname(target)
    same_place = "临时文件要和 path 放在同一个文件夹里（save_checkpoint 的说明：先写同一文件夹里的临时文件）"
    made = [e["op"] for e in outcome.fs_events
            if e["step"] == 0 and e["op"] in ("mkdir", "rmdir") and e["path"] == folder]
    if not folder.startswith(place + "/") or made[:1] != ["mkdir"]:
        return f"{same_place}：os.replace 只有在同一个文件系统里才是原子的，path 所在的文件夹可能在另一块磁盘上"
    return (f"{same_place}，你的在保存时新建的子文件夹 {os.path.relpath(folder, place)} 里。子文件夹和 path 在同一块磁盘上，"
            "改名仍是原子的，改名之后 fsync path 所在的文件夹就能让它落盘"
            + ("；可这个子文件夹保存之后一直留在 path 旁边，而文件夹里只该有 path 这一个文件（notebook 里的可见检查也这样要求），"
               "重启、清理和别的程序才不用猜哪个是检查点" if made[-1] == "mkdir" else "")
            + "。直接把临时文件建在 path 所在的文件夹里：tempfile.mkstemp(dir=path 所在的文件夹)")


def kill_points(outcome, step: int) -> list:
    """(the index of a recorded call of save step `step`, the checkpoint folder's files as a kill right after it
    leaves them): the last such moment of each set of file names the save's calls make there, but for the set it
    found (at most MAX_KILLS, in order)."""
    began, ended = outcome.started_at[step], outcome.returned_at[step]
    inside = [number for number, e in enumerate(outcome.fs_events) if e["step"] == step
              and (began is None or e["at"] > began) and (ended is None or e["at"] <= ended)]
    folder = os.path.dirname(outcome.scenario.meta["file"]) + "/"
    before = frozenset(name for name in outcome.scenario.files if name.startswith(folder))
    found = {}
    for number, files in zip(inside, killed_files(outcome, inside)):
        there = {name: data for name, data in files.items() if name.startswith(folder)}
        if frozenset(there) != before:
            found[frozenset(there)] = (number, there)
    return list(found.values())[:MAX_KILLS]


def check_save_after_kill(grading):
    """Killed inside a save over a checkpoint (at each moment its calls leave other files in the folder), then
    saved again on the files as the kill left them (each in a folder of its own, in one process): first the same
    state (the same turns: after the restart the agent reaches the same save point again), then a new one. Each save
    succeeds and the checkpoint loads (with the reference's load_checkpoint) as the one just saved."""
    outcome = grading.outcome("save_roundtrip")
    meta = outcome.scenario.meta
    if outcome.steps[0]["status"] != StepStatus.RETURNED:
        return  # test_round_trip says why
    points = kill_points(outcome, 0)
    if not points:
        return  # the save made no file beside the checkpoint: a kill leaves nothing in the way
    files, targets = {}, [f"killed-{number}/{meta['file']}" for number in range(len(points))]
    for number, (_, there) in enumerate(points):
        files.update({f"killed-{number}/{name}": data for name, data in there.items()})
    again = ((meta["state"], "同一个 state（turns 和被杀时一样）"), (meta["after_kill"], "新的 state"))
    # the second save reads the path as it begins: what the first one left there
    steps = [{**call("save_checkpoint", state, at_path(target)), "batch": "killed",
              "read_before": [target] if state is meta["after_kill"] else []}
             for target in targets for state, _ in again]
    killed = grading.outcome("save_after_kill", Scenario("save_after_kill", steps, files=files,
                                                         read_after=tuple(targets), independent_steps=True))
    for number, ((last, _), target) in enumerate(zip(points, targets)):
        for index, (state, which) in enumerate(again, number * len(again)):
            where = (f"进程在保存途中（「{describe(outcome.fs_events[last], outcome.workdir)}」之后）被杀掉，"
                     f"文件夹里的文件都是被杀那一刻的样子，重启之后再调用 save_checkpoint({which}, path)")
            message = problem(killed, index, "save_checkpoint")
            expect(message is None, f"{where}：{message}。{KILL_ADVICE}")
            after = killed.files_after if state is meta["after_kill"] else killed.read_before.get(index + 1, {})
            left = after.get(target)
            loaded, _ = reference_load(grading.reference, None if left is None else left.encode("utf-8"))
            expect(same(without_extra(loaded), state), f"{where}，它返回之后 path 上不是刚存下的那一份"
                                        f"（{'没有文件' if left is None else short(left, 60)}）")


def check_unsaved(grading):
    """Saves of states JSON cannot hold, each over a checkpoint of its own: what the reference does on the same
    state over the same file, the student's does (raise, the checkpoint as it was), and no file is left."""
    outcome = grading.outcome("save_roundtrip")
    meta = outcome.scenario.meta
    for index, (kind, name) in enumerate(meta["unsaved"].items(), meta["first_unsaved"]):
        what = f"state 里有{UNSAVED[kind]}时"
        raised, after = reference_save(grading.reference, outcome.scenario.files[name], meta["unjsonable"][kind])
        step = outcome.steps[index]
        if step["status"] not in (StepStatus.RETURNED, StepStatus.RAISED):
            fail(f"{what}：" + problem(outcome, index, "save_checkpoint"))
        if raised:
            expect(step["status"] == StepStatus.RAISED,
                   f"{what}，JSON 存不了它，save_checkpoint 应该把异常抛出去（清理临时文件之后 raise），你的函数却正常返回了："
                   "调用方会以为已经存好。用 default= 之类把它悄悄转成别的值也不行，读回来的就不是原来的 state 了")
        expect(outcome.files_after.get(name) == after,
               f"{what}，保存失败之后 path 上应该还是原来那一份完整的检查点，你的 save_checkpoint 把它"
               + ("删掉或移走了" if outcome.files_after.get(name) is None else "改写了")
               + "：先写同一文件夹里的临时文件，写完再用 os.replace 换上去")
    last = meta["first_unsaved"] + len(meta["unsaved"]) - 1
    left = [name for name in stray_files(outcome, last, []) if name.startswith(meta["unsaved_folder"] + "/")]
    expect(not left, f"state 里有 JSON 存不了的值、保存失败之后，文件夹里留下了多余的文件 {short(left)}："
                     + stray_advice(outcome, left, "出错时要先删掉临时文件再把异常抛出去——不只是 OSError，json.dump 抛出的 "
                                                   "TypeError 也一样（except BaseException 或 finally）"))


@pytest.mark.grade(GRADE, 1)
def test_durable(grading):
    """断电发生在保存的任何时刻，path 上都是上一份或新的一份完整检查点；保存返回之后一定是新的一份（Windows 上不要求 fsync 文件夹）"""
    roundtrip, atomic = grading.outcome("save_roundtrip"), grading.outcome("save_atomic")
    returned(roundtrip, 0, "save_checkpoint(state, path)")
    meta, small = roundtrip.scenario.meta, atomic.scenario.meta["state"]
    target = os.path.normpath(os.path.join(roundtrip.workdir, meta["file"]))
    moved = [e["path"] for e in roundtrip.fs_events if e["step"] == 0 and e["op"] == "rename" and e.get("dst") == target]
    elsewhere = [source for source in moved if os.path.dirname(source) != os.path.dirname(target)]
    if elsewhere:
        fail(temporary_elsewhere(roundtrip, os.path.dirname(elsewhere[0]), target))
    # seen by strace, outside the sandbox: the calls that reached the kernel, whatever the code patched
    cuts = power_cuts(roundtrip, [Save(0, meta["previous"], meta["state"], "覆盖一份已有的检查点时")])
    cuts += power_cuts(atomic, [Save(0, None, small, "第一次保存（path 上还没有检查点）时"),
                                Save(1, small, atomic.scenario.meta["big"], "一次写到一半磁盘满了的保存中",
                                     made_to_fail=True)])
    default = grading.outcome("save_default_path")
    cuts += power_cuts(default, [Save(0, default.scenario.meta["previous"], default.scenario.meta["state"],
                                      "存到默认的 CHECKPOINT_PATH 时（只有文件名：os.path.dirname 是空字符串，"
                                      "它所在的文件夹是当前文件夹）")])
    two = steps_told_apart(grading.outcome("save_two_folders"))
    cuts += power_cuts(two, [Save(1, two.scenario.meta["previous"], two.scenario.meta["state"],
                                  "同一个进程里先存到另一个文件夹、再覆盖这里已有的检查点时")])
    message = first_failure(cuts, grading.reference)
    if message:
        fail(message)
    message = student_loads(grading, files_to_load(cuts))
    if message:
        fail(message)
