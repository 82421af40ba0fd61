"""append_ledger (test_append_ledger, 3 points): append-only, atomic and durable, judged on disk.

Two appends to a ledger that already holds records, one that creates the ledger (each path given
absolute or relative, drawn), one that creates `ledger.jsonl` by its bare name in the working
folder, as ledger_path(CHECKPOINT_PATH) names it (its os.path.dirname is ""), and one to each of
two other ledgers in one process (a handle kept from the first append must not take the second), and two to
one ledger in one process with another process's append in between (a kept handle writes at the end all the
same), and two to one new ledger in one process, removed in between (the second creates it again), and four or six
to one ledger in one process, one after another (each durable before it returns, not only the first), and one to a
path where a folder stands (the error reaches the caller, the folder untouched). strace
records the calls from outside; every state a crash or power cut could leave at each moment
(autograder.crash_states) must read back, with the course's read_ledger and with the student's own, as the
ledger before the append or after it: the old records never lost or rewritten, never half a record, never an
error; once append_ledger returned, only after.
"""
import os
from pathlib import Path

import pytest

from autograder.hidden_tests.crashes import describe
from autograder.hidden_tests.test_save_load import descriptors_left_open, folder_left, leak_advice
from autograder.protocol import StepStatus
from autograder.hidden_tests.scenarios import FOLDER_FILE
from autograder.sandbox import Scenario
from course.ledger import LEDGER_NAME

from .helpers import expect, expect_raised_as, fail, problem, records_in, reference_raises, same, short
from .ledger_crashes import FOLDER_ADVICE, cuts
from .scenarios import BLOCKED_TEXT

GRADE = "test_append_ledger"
ADVICE = {"lost": "台账只能追加：用 \"a\" 模式打开，把新的一行写在末尾；不要先清空或重写整个文件（要整份重写，就写临时文件、"
                  "fsync、os.replace，再 fsync 文件夹）",
          "half": "半截的记录只能出现在最后一行、而且没有换行（读台账的人把它当作没写完）：每条记录一行 JSON，以换行结束，"
                  "一次写完",
          "durable": "返回之前这一行必须已经落盘：flush 之后 os.fsync 台账文件（或者用 O_SYNC / O_DSYNC 打开它）",
          "folder": FOLDER_ADVICE,
          "newline": "写完的记录后面要有换行（\"\\n\"）：没有换行的最后一行，读台账的人当作没写完的半截，"
                     "下一条记录还会接在同一行上"}


BARE = 3  # the step that creates a ledger named by its bare file name, in the working folder
PAIR = (4, 5)  # the steps appending to two ledgers, one each, in one process
SHARED = (6, 7)  # the steps appending to one ledger in one process, another process appending in between
RECREATED = (8, 9)  # the steps appending to one new ledger in one process, the grader removing it in between
CREATING = (2, BARE, RECREATED[1])  # the steps whose append creates the ledger


def many(meta) -> range:
    """The steps appending one after another to one ledger in one process (how many is drawn)."""
    return range(meta["many"]["first_step"], meta["many"]["first_step"] + len(meta["many"]["records"]))


def appended(grading, indices=None):
    outcome = grading.outcome("append")
    if indices is None:
        indices = (0, 1, 2, BARE, *PAIR, *SHARED, *RECREATED, *many(outcome.scenario.meta))
    for index in indices:
        what = (f'append_ledger(Path("{LEDGER_NAME}"), record)（只有文件名、没有文件夹的台账，在当前文件夹里新建：'
                'os.path.dirname 是空字符串，它所在的文件夹是 "."）' if index == BARE else "append_ledger(path, record)")
        message = problem(outcome, index, what)
        expect(message is None, message)
    return outcome


def allowed(meta, index: int) -> tuple:
    """(before, after) of step `index`, as lists of records."""
    if index in CREATING:
        return [], [meta["first"] if index == 2 else meta["bare"] if index == BARE else meta["recreated"]["records"][1]]
    if index in many(meta):
        number = index - meta["many"]["first_step"]
        old = meta["many"]["old"] + meta["many"]["records"][:number]
        return old, old + [meta["many"]["records"][number]]
    old = meta["old"] + meta["appended"][:index]
    return old, old + [meta["appended"][index]]


def ledger_of(meta, index: int) -> str:
    if index in many(meta):
        return meta["many"]["ledger"]
    return {2: meta["created"], BARE: LEDGER_NAME,
            RECREATED[1]: meta["recreated"]["ledger"]}.get(index, meta["existing"])


def check_cuts(grading, indices) -> None:
    outcome = appended(grading, indices)
    meta = outcome.scenario.meta
    states = set()
    for index in indices:
        before, after = allowed(meta, index)
        relative = ledger_of(meta, index)
        for kind, when, contents in cuts(outcome, relative, index):
            wanted = (after,) if kind == "end" else (before, after)
            for content in sorted(contents, key=lambda c: (c is not None, len(c or b""), c or b"")):
                states.add(content)
                records, error = records_in(content)
                if error is None and any(same(records, w) for w in wanted):
                    continue
                which = ("（这本台账在同一个进程里刚被删掉，这次追加又新建了它：之前记下的「建过了」不再算数）"
                         if index == RECREATED[1] else
                         f"（同一个进程里接连追加的第 {index - meta['many']['first_step'] + 1} 条：每一条返回之前都要落盘，"
                         "不只是进程里的第一条）" if index in many(meta) and index > meta["many"]["first_step"] else "")
                fail(f"模拟断电：往有 {len(before)} 条记录的台账追加一条{which}，{when}断电，台账"
                     + _what(content, records, error, before, after) + "。"
                     + _advice(kind, index in CREATING, content, records, before, outcome.files_after.get(relative)))
    message = student_reads(grading, sorted(s for s in states if s is not None), f"ledger_reads_{indices[0]}")
    if message:
        fail(message)


def _what(content, records, error, before, after) -> str:
    if content is None:
        return "文件不见了"
    if error is not None:
        return f"读不出来（{type(error).__name__}：{short(str(error), 60)}）"
    kept = sum(1 for r in before if r in records)
    return f"里读出 {len(records)} 条记录（原来的 {len(before)} 条里只剩 {kept} 条）" if kept < len(before) else \
        f"里读出 {len(records)} 条记录，应该是 {len(before)} 条（追加之前）或 {len(after)} 条（追加之后）"


def _advice(kind, creating: bool, content, records, before, final: str | None) -> str:
    if final and not final.endswith("\n"):  # the ledger as the appends left it
        return ADVICE["newline"]
    if records is not None and all(r in records for r in before) and kind == "end":
        # a new ledger gone: its name was not made durable; there but without the line: the line was not
        return ADVICE["folder"] if creating and content is None else ADVICE["durable"]
    if records is None:
        return ADVICE["half"]
    return ADVICE["lost"]


def student_reads(grading, contents: list, name: str) -> str | None:
    """Each state read with the student's read_ledger (one process): the same records as the course's."""
    if not contents:
        return None
    names = [f"power-cut/{number}/ledger.jsonl" for number in range(len(contents))]
    steps = [{"kind": "call", "name": "read_ledger", "args": [{"$path": name}], "kwargs": {}, "batch": "reads"}
             for name in names]
    outcome = grading.outcome(name, Scenario(name, steps, files=dict(zip(names, contents)), independent_steps=True))
    for index, content in enumerate(contents):
        expected, _ = records_in(content)
        step = outcome.steps[index]
        if step["status"] != StepStatus.RETURNED or not same(step.get("value"), expected):
            got = (f"你代码里的 read_ledger 读它却返回了 {short(step.get('value'), 60)}"
                   if step["status"] == StepStatus.RETURNED else problem(outcome, index, "你代码里的 read_ledger 读它时"))
            return f"断电后台账里是 {len(expected)} 条完整的记录，{got}"
    return None


def created_mode(outcome, relative: str, index: int) -> int | None:
    """The mode bits step `index` gave the file it created at `relative` (as strace saw the open), if it did."""
    target = outcome.workdir.rstrip("/") + "/" + relative
    return next((e.get("mode") for e in outcome.fs_events if isinstance(e, dict) and e.get("step") == index
                 and e.get("op") == "open" and e.get("path") == target and "O_CREAT" in str(e.get("flags"))
                 and isinstance(e.get("mode"), int)), None)


def mode_problem(mode: int | None, what: str) -> str | None:
    """Why a ledger made with these mode bits is no ledger its owner can read and append to; None if it is."""
    if mode is None or mode & 0o600 == 0o600:
        return None
    cannot = "读和写" if not mode & 0o600 else "读" if not mode & 0o400 else "写"
    # 644 written without 0o is the decimal 644, 0o1204
    decimal = (f"：你给的是十进制的 {mode}，八进制要写 0o{mode}" if set(str(mode)) <= set("01234567") and mode > 0o777
               else "")
    return (f"{what}，新建台账时给的权限是 {oct(mode)}{decimal}。文件的主人{cannot}不了它，续跑时读这本台账"
            "（read_ledger）会抛 PermissionError，对账崩溃，任务再也续不上：新建台账用 0o644（或 0o600）")


@pytest.mark.grade(GRADE, 1)
def test_appends_keep_every_record(grading):
    """追加之后，原来的记录原样、按顺序都在，新记录跟在后面，一条一行；台账不存在时新建它，它的主人读得了、写得了；同一个进程里往两本台账追加，各自写进自己的 path；两次追加之间别的进程也追加了一条，哪一条都不被盖掉；台账被删掉之后再追加，新建的台账里是这一条；追加不留下打开的文件描述符，也不换掉进程的当前文件夹；写不进去时（路径上是个文件夹）让错误抛出去"""
    outcome = appended(grading)
    meta = outcome.scenario.meta
    for relative, wanted, what in ((meta["existing"], meta["old"] + meta["appended"], "往已有记录的台账追加两条之后"),
                                   (meta["created"], [meta["first"]], "往还不存在的台账追加一条之后"),
                                   (LEDGER_NAME, [meta["bare"]], f"在当前文件夹里新建只有文件名的台账（{LEDGER_NAME}）之后")):
        text = outcome.files_after.get(relative)
        expect(text is not None, f"{what}，台账文件不在 path 上：台账就写在传进来的 path 上")
        records, error = records_in(text)
        expect(error is None, f"{what}，课程的 read_ledger 读不了这本台账（{short(str(error), 80)}）："
                              "每条记录一行 JSON（json.dumps 不带 indent），以换行结束")
        expect(not text or text.endswith("\n"), f"{what}，台账的最后没有换行。" + ADVICE["newline"])
        message = mode_problem(created_mode(outcome, relative, {meta["created"]: 2, LEDGER_NAME: BARE}.get(relative)),
                               what)
        expect(message is None, message)
        expect(same(records, wanted), f"{what}，台账里读出 {len(records)} 条记录，应该是 {len(wanted)} 条："
                                      + ("原来的记录丢了或被改写了，台账只追加" if not same(records[:len(meta['old'])],
                                                                               wanted[:len(meta['old'])])
                                         else "同一条记录在台账里写了不止一次：一次 append_ledger 只写一行"
                                         if len(records) > len(wanted) and all(
                                             any(same(r, w) for w in wanted[len(meta['old']):])
                                             for r in records[len(meta['old']):])
                                         else "新记录和传进来的 record 不一样，要原样写下每个字段"))
    check_pair(outcome)
    check_shared(outcome)
    expect(recreated_holds_its_record(outcome), recreated_problem(outcome))
    check_no_leaks(outcome)
    check_folder_kept(outcome)
    check_blocked(grading, outcome)


def check_blocked(grading, outcome) -> None:
    """An append to a path where a folder stands: it raises what the reference raises, and the folder is untouched."""
    blocked = outcome.scenario.meta["blocked"]
    wanted = reference_raises(grading, "append_ledger", Path.mkdir, blocked["record"], ledger_first=True)
    if wanted is not None:
        expect_raised_as(outcome, blocked["step"], wanted, "append_ledger",
                         "台账的路径上是一个文件夹，记录写不进去：append_ledger 应该让 {error} 抛出去，不要 try/except 把它吞掉。"
                         "调用它的 execute_with_ledger 靠这个异常才知道 intent 没有落盘、不能去执行工具", "")
    expect(outcome.files_after.get(f"{blocked['ledger']}/{FOLDER_FILE}") == BLOCKED_TEXT,
           "台账的路径上是一个文件夹，append_ledger 追加不进去时动了这个文件夹（删掉或改写了里面的文件）："
           "写不进去就让错误抛出去，别人的文件原样留着")


def check_folder_kept(outcome) -> None:
    """No append leaves its process in another current folder (lesson 3's check_reloads, by strace's chdir)."""
    for index in range(len(outcome.scenario.steps)):
        moved = folder_left(outcome, index)
        expect(moved is None,
               f"append_ledger 把进程的当前文件夹换成了 {moved}（os.chdir），返回时没有换回来。之后传进来的相对路径"
               "（\"runs/a/checkpoint.json\"、默认的 checkpoint.json 和它旁边的台账）都从那里算起，指向了别处：run_agent "
               "的下一次存档、下一条台账记录写进了别的文件夹（或者抛 FileNotFoundError），重启后找不到它们。不要改当前文件夹："
               "fsync 文件夹就用 os.open(文件夹, os.O_RDONLY) 打开它；非要切换，也要在 finally 里切回来（contextlib.chdir）")


def check_no_leaks(outcome) -> None:
    """The appends of one process leave no descriptor open behind them (lesson 3's check_no_leaks): an append to a
    ledger appended to before in the process opens none that it never closes (one kept for good, per ledger or
    folder, is opened by the first append there; a handle kept per ledger may be opened again once the grader removed
    the ledger, its old one closed)."""
    again = [SHARED[1], RECREATED[1]]
    removed = os.path.join(outcome.workdir, outcome.scenario.meta["recreated"]["ledger"])
    left = [record for first in (SHARED[0], RECREATED[0]) for index, record in descriptors_left_open(outcome, first)
            if index in again and not (index == RECREATED[1] and record.get("path") == removed)]
    expect(not left,
           f"同一个进程里往同一个 path 追加了两次，第二次追加打开的 {len(left)} 个文件描述符到最后也没有关上"
           f"（第一个：「{describe(left[0], outcome.workdir) if left else ''}」）：追加一次就漏一个，进程跑得越久漏得越多"
           "（agent 每次有副作用的调用追加两条），最后用完描述符（EMFILE），台账再也追加不进去。"
           + (leak_advice(outcome, left[0]) if left else ""))


def check_shared(outcome) -> None:
    """Two appends to one ledger in one process, another process appending a record in between (through O_APPEND, as
    any append): every record is there, each whole, in the order they were appended."""
    shared = outcome.scenario.meta["shared"]
    wanted = shared["old"] + shared["records"][:1] + [shared["other"]] + shared["records"][1:]
    records, error = records_in(outcome.files_after.get(shared["ledger"]))
    if error is None and same(records, wanted):
        return
    overwritten = error is not None or shared["other"] not in records
    fail(f"同一个进程里两次往台账 {shared['ledger']} 追加之间，另一个进程（同一个文件夹里的另一个任务、被杀之后续跑的 agent）"
         "往它末尾追加了一条记录。之后台账" + (f"读不出来（{short(str(error), 60)}）" if error is not None else
                                         f"里读出 {len(records)} 条记录，应该是 {len(wanted)} 条")
         + ("：你的 append_ledger 在自己记着的位置上写，盖掉了别人追加的内容" if overwritten else "")
         + "。每次追加都要写在文件此刻的末尾：用 O_APPEND 打开（\"a\" 模式，或 os.open 带 os.O_APPEND），内核每次写之前"
           "都会移到末尾；不要打开时 seek 到末尾一次、以后就在那个偏移上一直写下去")


def recreated_holds_its_record(outcome) -> bool:
    """The ledger removed between two appends of one process holds the second append's record, and only it."""
    recreated = outcome.scenario.meta["recreated"]
    records, error = records_in(outcome.files_after.get(recreated["ledger"]))
    return error is None and same(records, recreated["records"][1:])


def recreated_problem(outcome) -> str:
    recreated = outcome.scenario.meta["recreated"]
    text = outcome.files_after.get(recreated["ledger"])
    records, error = records_in(text)
    found = ("没有台账文件" if text is None else f"读不出来（{short(str(error), 60)}）" if error is not None
             else f"读出 {len(records)} 条记录，应该只有新追加的 1 条")
    return (f"同一个进程里往台账 {recreated['ledger']} 追加一条之后，它被删掉了（notebook 里清空文件夹、重新运行单元格就会这样），"
            f"再往这个 path 追加一条：之后 path 上{found}。每次追加都要按这次传进来的 path 打开（\"a\" 模式会新建它）："
            "一直开着的句柄还指向删掉的那个文件，写进去的记录谁也读不到")


def check_pair(outcome) -> None:
    """One append to each of two ledgers in one process: each ledger holds its own record, after its old ones."""
    pair = outcome.scenario.meta["pair"]
    read = [records_in(outcome.files_after.get(entry["ledger"])) for entry in pair]
    what = f"同一个进程里先往台账 {pair[0]['ledger']}、再往台账 {pair[1]['ledger']} 各追加一条之后，"
    for number, entry in enumerate(pair):
        other = 1 - number
        expect(entry["record"] not in (read[other][0] or []),
               f"{what}给第 {number + 1} 本的记录写进了第 {other + 1} 本（{pair[other]['ledger']}）："
               "每次追加都要写到这次传进来的 path 上，不能一直用第一次打开的那个文件（要缓存打开的文件，就按路径各存一个）")
    for number, (entry, (records, error)) in enumerate(zip(pair, read)):
        expect(error is None and same(records, entry["old"] + [entry["record"]]),
               f"{what}第 {number + 1} 本里" + (f"读不出来（{short(str(error), 60)}）" if error is not None else
                                              f"读出 {len(records)} 条记录，应该是原来的 {len(entry['old'])} 条加上新追加的一条"))


@pytest.mark.grade(GRADE, 1)
def test_power_cut_while_appending(grading):
    """追加到已有的台账时（同一个进程里接连追加好几条也一样），在任何时刻断电，读回来的都是追加之前或之后的台账；返回之后一定是之后的"""
    check_cuts(grading, (0, 1, *many(grading.outcome("append").scenario.meta)))


@pytest.mark.grade(GRADE, 1)
def test_power_cut_while_creating(grading):
    """新建台账的那次追加（路径带文件夹，或者只有文件名，或者台账在同一个进程里被删掉之后），在任何时刻断电，读回来的都是空台账或有这一条的台账；返回之后文件和记录都已落盘"""
    # a record not written at path after the removal (a kept handle) already lost test_appends_keep_every_record
    check_cuts(grading, CREATING if recreated_holds_its_record(appended(grading)) else (2, BARE))
