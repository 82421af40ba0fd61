"""save_checkpoint / load_checkpoint (test_save_load, 4 points)."""
import os

import pytest

from autograder.protocol import StepStatus

from .helpers import (as_user_sees, differing_fields, expect, fail, is_chinese, mentions_number, on_disk, problem,
                      returned, short, stray_files, without_paths)

GRADE = "test_save_load"
LOAD_ERRORS = {  # the kind of broken file -> how the feedback names it
    "corrupt": "文件不是合法的 JSON（只剩半截）时",
    "future": "版本不符时",
    "not_utf8": "文件不是 UTF-8 编码（例如用 GBK 存的）时",
    "not_object": "文件是合法的 JSON、但不是一个对象（这里是一个列表）时",
    "no_version": "文件里没有 version 字段时",
}


def check_no_stray_files(outcome, index, keep, when, advice):
    left = stray_files(outcome, index, [keep])
    expect(not left, f"{when}，文件夹里留下了多余的文件 {short(left)}：{advice}")


@pytest.mark.grade(GRADE, 1)
def test_round_trip(grading):
    """保存后原样读回（六个字段都一样），文件夹里不留临时文件；文件不存在时返回 None"""
    outcome = grading.outcome("save_roundtrip")
    state, name = outcome.scenario.meta["state"], outcome.scenario.meta["file"]
    returned(outcome, 0, "save_checkpoint(state, path)")
    saved, why = on_disk(outcome, name)
    expect(why is None, f"save_checkpoint 保存之后：{why}")
    wrong = differing_fields(saved, state)
    expect(not wrong and saved.keys() == state.keys(),
           f"save_checkpoint 写进文件的内容和传给它的 state 不一样（{'、'.join(wrong) or '多了别的字段'}）：要原样写下每个字段")
    check_no_stray_files(outcome, 0, name, "一次成功的保存之后",
                         "临时文件应该用 os.replace 改名成目标文件，而不是复制过去、把它留在原地")
    loaded = returned(outcome, 1, "load_checkpoint(path)")
    wrong = differing_fields(loaded, state)
    expect(not wrong, f"load_checkpoint 读回来的内容和保存的 state 不一样（{'、'.join(wrong)}）")
    nothing = returned(outcome, 2, "对不存在的文件调用 load_checkpoint")
    expect(nothing is None, f"文件不存在时 load_checkpoint 应该返回 None（表示这是新任务），你的函数返回了 {short(nothing)}")


@pytest.mark.grade(GRADE, 1)
def test_load_errors(grading):
    """文件损坏、不是 UTF-8、不是对象、没有版本或版本不符时抛 ValueError，中文信息里写出路径（和两个版本号）"""
    outcome = grading.outcome("save_roundtrip")
    meta = outcome.scenario.meta
    for index, (kind, name) in enumerate(meta["broken"].items(), meta["first_broken"]):  # one step per file
        what = LOAD_ERRORS[kind]
        step = outcome.steps[index]
        if step["status"] == StepStatus.RETURNED:
            fail(f"{what}，load_checkpoint 应该抛 ValueError，你的函数却返回了 {short(step['value'])}")
        if step["status"] != StepStatus.RAISED:
            fail(f"{what}：" + problem(outcome, index, "load_checkpoint"))
        error = step["error"]
        expect(error["value_error"], f"{what}，load_checkpoint 应该抛 ValueError（或它的子类），你的函数抛的是 {error['type']}")
        message = error["message"]
        shown = as_user_sees(message, outcome.workdir)
        expect(os.path.basename(name) in message, f"{what}，报错信息里要写出是哪个文件（路径），你的信息是「{shown}」")
        expect(is_chinese(without_paths(message, outcome.workdir, name), meta["task"]),
               f"{what}，报错信息要用中文写给用户看，你的信息是「{shown}」")
    future = meta["first_broken"] + list(meta["broken"]).index("future")
    message = without_paths(outcome.steps[future]["error"]["message"], outcome.workdir, meta["broken"]["future"])
    expect(mentions_number(message, meta["version"]) and mentions_number(message, 1),
           f"版本不符时，报错信息要写出文件里的版本号（{meta['version']}）和代码认的版本号（1），"
           f"你的信息是「{as_user_sees(outcome.steps[future]['error']['message'], outcome.workdir)}」")


@pytest.mark.grade(GRADE, 1)
def test_atomic(grading):
    """一次写到一半失败的保存：异常抛出来，上一份检查点完好，文件夹里不留临时文件"""
    outcome = grading.outcome("save_atomic")
    meta = outcome.scenario.meta
    if problem(outcome, 0, "第一次保存"):
        fail("第一次保存（一份普通的检查点）就失败了：" + problem(outcome, 0, "save_checkpoint"))
    failed_save = outcome.steps[1]
    if failed_save["status"] not in (StepStatus.RETURNED, StepStatus.RAISED):
        fail("第二次保存时磁盘写满了（评分器限制了文件大小），" + problem(outcome, 1, "save_checkpoint"))
    previous, why = on_disk(outcome, meta["file"])
    expect(outcome.files_after.get(meta["file"]) is not None, "一次失败的保存之后，path 上原来的检查点不见了")
    if why:
        fail("一次写到一半失败的保存把原来的检查点写坏了（文件只剩半截）。提示：先写同一文件夹里的临时文件，"
             "写完再用 os.replace 换上去，不要直接覆盖目标文件")
    expect(not differing_fields(previous, meta["state"]), "一次失败的保存之后，path 上的检查点不再是上一份完整的检查点")
    expect(failed_save["status"] == StepStatus.RAISED,
           "磁盘写满、保存失败时，save_checkpoint 却正常返回了：异常被吞掉，调用方以为已经存好，"
           "接着去执行工具，崩溃后就会从更早的检查点恢复。保存失败要把异常抛出去（清理临时文件之后 raise）")
    check_no_stray_files(outcome, 1, meta["file"], "一次失败的保存之后",
                         "出错时要先删掉临时文件，再把异常抛出去；用固定名字的临时文件，残骸还会和下一次保存撞在一起")


@pytest.mark.grade(GRADE, 1)
def test_durable(grading):
    """临时文件在同一文件夹、写完并 fsync 之后才改名，改名后 fsync 文件夹（Windows 打不开文件夹，那里不要求）"""
    outcome = grading.outcome("save_roundtrip")
    returned(outcome, 0, "save_checkpoint(state, path)")
    target = os.path.normpath(os.path.join(outcome.workdir, outcome.scenario.meta["file"]))
    events = [e for e in outcome.fs_events if e["step"] == 0]  # seen by strace, outside the sandbox
    renames = [i for i, e in enumerate(events) if e["op"] == "rename" and e.get("dst") == target]
    expect(renames, "save_checkpoint 没有把临时文件改名成目标文件（os.replace）：直接写目标文件，"
                    "写到一半崩溃就只剩半个文件")
    last = renames[-1]
    temporary = events[last]["path"]
    expect(os.path.dirname(temporary) == os.path.dirname(target),
           "临时文件要和目标文件放在同一个文件夹里：os.replace 只有在同一个文件系统里才是原子的")
    opened = [i for i, e in enumerate(events[:last]) if e["op"] == "open" and e["path"] == temporary]
    before = events[opened[-1] if opened else 0:last]
    writes = [i for i, e in enumerate(before) if e["op"] == "write" and e["path"] == temporary]
    syncs = [i for i, e in enumerate(before) if e["op"] in ("fsync", "fdatasync") and e["path"] == temporary]
    expect(syncs, "临时文件写完、改名之前要 flush 并 os.fsync：否则断电后，改名可能指向一个内容还没落盘的文件")
    expect(not writes or writes[-1] < syncs[-1],
           "临时文件在 os.fsync 之后还有写入：先 flush（或写完、关闭文件），再 fsync，最后改名。"
           "fsync 之后才写进文件的内容（例如还留在 Python 缓冲区里、关闭文件时才写出的部分）断电后可能丢失")
    folder = os.path.dirname(target)
    expect(os.name == "nt" or any(e["op"] in ("fsync", "fdatasync") and e["path"] == folder for e in events[last + 1:]),
           "改名之后还要 fsync 所在的文件夹（os.open 文件夹再 os.fsync）：改名记在目录里，目录落盘了改名才扛得住断电")
