"""What the hidden tests share: failing with a message for the student, and reading
the data that came back from the sandbox without trusting its shape.

A check fails only through `fail(message)`: the message is written for the student,
in Chinese, and is all the feedback shows. Data from the child is plain JSON, but of
any shape, so every access goes through a helper that fails with a message instead of
raising KeyError.
"""
import codecs
import contextlib
import json
import os
import re

import pytest

from autograder.contract import CHECKPOINT_FIELDS, same  # noqa: F401 (same: for the other hidden tests)
from autograder.protocol import CellStatus, StepStatus
from autograder.scenario_run import INVISIBLE
# worded as the visible checks; describe_reply and text_of are for the other hidden tests
from course.checks import (KEEP_CHECKPOINT_ADVICE, answer_letter, api_advice as course_api_advice,  # noqa: F401
                           describe_reply, extra_fields_said, short, text_of, unprivileged)
from course.model import InvalidRequest, check_tool_pairing

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
WRITING_OPS = {"write", "truncate", "rename", "link", "unlink", "mkdir", "rmdir", "mknod"}
REMOVING_OPS = {"unlink", "rmdir"}
WRITING_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
FORMAT_ADVICE = ("检查点要写成 UTF-8 的 JSON 文本（open(临时文件, \"w\", encoding=\"utf-8\") 再 json.dump），不带 BOM、不压缩："
                 "别的程序（课程的 load_checkpoint、第 4 课的代码、监控脚本）都按这个格式读它，你自己的 load_checkpoint 读得了不算数")
CHECKPOINT_KEYS = {"messages", "pendingToolUse"}  # what a JSON object holding a checkpoint has, at least
# Which answer cell defines each name the tests use.
DEFINED_IN = {"save_checkpoint": "save_load", "load_checkpoint": "save_load", "run_agent": "run_agent",
              "reconcile": "reconcile", "recovery_action": "recovery_action",
              "QUIZ_DELETE_ANSWER": "quiz_delete", "ROOT_CAUSE_ANSWER": "root_cause",
              "QUIZ_FAILURE_ANSWER": "quiz_failure", "READ_ONLY_TOOLS": "read_only_tools"}


def as_the_step(grading, function, *args):
    """function(*args) as a step would run it: in an isolated sandbox the step has no capability, so mode bits
    bind it even when the grader is root (the reference, as the oracle, runs under the same rules)."""
    return unprivileged(function, *args) if grading.sandbox.isolated else function(*args)


@contextlib.contextmanager
def tools_answering(reference, **names):
    """The reference's module-level `names` (execute_tool, lookup_effect), for a while, are the ones given
    (answering as the student's tools and the grader's services did)."""
    saved = {name: getattr(reference, name) for name in names}
    for name, value in names.items():
        setattr(reference, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(reference, name, value)


def fail(message: str):
    pytest.fail(message, pytrace=False)


def expect(condition, message: str):
    if not condition:
        fail(message)


def expect_letter(value, name: str, right: str, mistake: str):
    """A multiple-choice answer: one letter, written any way answer_letter reads it, and the right one."""
    expect(isinstance(value, str), f'{name} 应该是一个字母的字符串，例如 "A"；你的是 {short(value)}')
    letter = answer_letter(value)
    expect(len(letter) == 1 and "A" <= letter <= "Z",
           f'{name} 应该是一个字母的字符串，例如 "A"；你的是 {short(value)}：只写选项的字母，不要连选项的内容一起写'
           "（notebook 里这一格下面的检查也会这样提示）")
    expect(letter == right, mistake)


def one_email(outcome, hint: str):
    """The mail server got exactly one email in the steps; more means send_email ran again on resuming."""
    emails = outcome.emails_during_steps()
    expect(emails == 1, f"send_email 在恢复时被重新执行了一次：崩溃前已经发出的邮件又发了一遍（服务器一共收到 {emails} 封）。"
                        + hint if emails > 1 else f"邮件服务器一共收到 {emails} 封邮件，应该恰好 1 封")


def as_json(value) -> str:
    """A value as the student would write it in Python, so "true" and True look different."""
    return short(json.dumps(value, ensure_ascii=False)) + ("（字符串）" if isinstance(value, str) else "")


def problem(outcome, index: int, what: str) -> str | None:
    """Why step `index` gave no value, in the student's terms; None if it returned."""
    step = outcome.steps[index]
    status = step["status"]
    if status == StepStatus.RETURNED:
        return None
    if status == StepStatus.RAISED:
        error = step["error"]
        if error["type"] == "BadRequestError":
            return f"{what} 调用模型时，API 返回了 400：{api_advice(error['message'])}"
        standins = outcome.scenario.standins  # the grader's own, as the lesson writes them: say so, or it cannot be redone
        plain = "load_checkpoint 返回的是普通的 dict 和 list，" if "load_checkpoint" in standins else ""
        given = (f"（这一步里 {'、'.join(standins)} 是评分器照课文写的版本，{plain}只有其余的是你的代码："
                 "在 notebook 里换上课文的写法试一试）") if standins else ""
        return f"{what} 抛出了 {error['type']}：{short(error['message'], 120)}{given}"
    if status == StepStatus.MISSING:
        name = outcome.scenario.steps[index]["name"]
        return missing_message(outcome, name)
    if status == StepStatus.UNSUPPORTED:
        return f"{what} 返回的数据不能存成 JSON（{step.get('detail')}）"
    if status == StepStatus.TIMEOUT:
        return f"{what} {step.get('detail')}，这一项不得分"
    if status == StepStatus.DIED:
        return f"{what} 运行时{step.get('detail')}，这一项不得分"
    if status == StepStatus.CRASHED_BY_GRADER:
        return f"{what} 被评分器按计划中途终止了"
    return f"前面的步骤失败了，{what} 没有运行"


def api_advice(message: str) -> str:
    if "without `tool_result`" in message:
        return ("对话里有一个 tool_use 等不到与它 id 相同的 tool_result。恢复时检查点里有悬空调用（pendingToolUse 不是 None），"
                "要先对账（调用 reconcile）再调用模型")
    if "unexpected `tool_use_id`" in message:
        return "有一个 tool_result 的 tool_use_id 在上一条 assistant 消息里找不到"
    return short(course_api_advice(message), 160)  # the rest as the visible checks word it


def missing_message(outcome, name: str) -> str:
    cell = DEFINED_IN.get(name, name)
    reason = "提交里没有这个单元格"
    report = outcome.cells.get(cell)
    if report and report["status"] == CellStatus.RAISED:
        error = report["error"]
        reason = f"这个单元格运行时抛出了 {error['type']}：{short(error['message'], 100)}"
    elif report and report["status"] in (CellStatus.TIMEOUT, CellStatus.DIED):
        reason = "这个单元格一运行就卡住或让进程退出，评分时跳过了它"
    elif report:
        reason = "这个单元格运行完了，但没有定义它"
    return f"没有找到 {name}（它应该在答题单元格 {cell} 里定义；{reason}）"


def returned(outcome, index: int, what: str):
    """The value step `index` returned, or fail saying why there is none."""
    message = problem(outcome, index, what)
    if message:
        fail(message)
    return outcome.steps[index]["value"]


def field(state, key: str, what: str):
    expect(isinstance(state, dict), f"{what} 应该是一个 dict，实际是 {short(state)}")
    expect(key in state, f"{what} 里没有 {key} 字段")
    return state[key]


def pairing_problem(messages) -> str | None:
    try:
        check_tool_pairing(messages)
    except InvalidRequest as exc:
        return str(exc)
    except (AttributeError, TypeError, KeyError, IndexError):
        return "messages 的结构不对"
    return None


def as_user_sees(message: str, workdir: str) -> str:
    """A message from the student's code with the sandbox's working folder taken out, cut short."""
    return short(message.replace(workdir.rstrip("/") + "/", ""), 100)


def without_paths(message: str, workdir: str, *names: str) -> str:
    """The message with every spelling of the checkpoint's path taken out (paths may contain digits)."""
    for name in names:
        for spelling in (os.path.join(workdir, name), os.path.realpath(os.path.join(workdir, name))):
            message = message.replace(spelling, " ")
    for spelling in (workdir, os.path.realpath(workdir), *names):
        message = message.replace(spelling, " ")
    return message


def mentions_number(text: str, number: int) -> bool:
    return re.search(rf"(?<!\d){number}(?!\d)", text) is not None


def usage_total(model_call: dict) -> int:
    usage = model_call["reply"]["usage"]
    return usage["input_tokens"] + usage["output_tokens"]


def removed(outcome, name: str) -> bool:
    """Whether the steps removed the file `name` (deleted it, or renamed it away) and left none there."""
    path = os.path.join(outcome.workdir, name)
    return outcome.files_after.get(name) is None and any(
        isinstance(e, dict) and e.get("op") in ("unlink", "rename") and e.get("path") == path for e in outcome.fs_events)


def format_said(content: bytes | str | None) -> str | None:
    """What a file is whose format no checkpoint reader reads, where its first bytes show it (a BOM, gzip, UTF-16);
    None otherwise. A str is a file's text as the grader decoded it (each invalid byte replaced by U+FFFD)."""
    bom, gzip, utf16 = ("以 UTF-8 的 BOM（EF BB BF，encoding=\"utf-8-sig\" 写出来的）开头", "是 gzip 压缩过的数据",
                        "是 UTF-16 编码的文本")
    starts = ((("\ufeff", bom), ("\x1f\ufffd", gzip)) if isinstance(content, str) else
              ((codecs.BOM_UTF8, bom), (b"\x1f\x8b", gzip), (codecs.BOM_UTF16_LE, utf16), (codecs.BOM_UTF16_BE, utf16)))
    return next((said for start, said in starts if content and content.startswith(start)), None)


def on_disk(outcome, name: str):
    """The JSON at `name` when the scenario ended: (state, None), or (None, why there is none)."""
    text = outcome.files_after.get(name)
    if text is None:
        return None, "path 上没有检查点文件" + ("：你的代码把它删掉（或改名挪走）了" if removed(outcome, name) else "")
    try:
        return json.loads(text), None
    except ValueError:
        written = format_said(text)
        return None, f"path 上的文件{written}，不是课程的 load_checkpoint 读得了的 JSON" if written else \
            "path 上的文件不是合法的 JSON"


def checkpoint_file(outcome, index: int) -> str:
    """The path (relative to the working folder) run number `index` of a run_agent scenario was given."""
    meta = outcome.scenario.meta
    return meta["files"][index] if "files" in meta else meta["file"]


def saved_state(call: dict) -> dict:
    """The checkpoint on disk when the grader got a model or tool call ({} if there was none, or no JSON object)."""
    state = (call.get("snapshot") or {}).get("state")
    return state if isinstance(state, dict) else {}


def is_chinese(message: str, *quoted: str) -> bool:
    """Whether the message has Chinese of its own (not only Chinese quoted from the file's data)."""
    for text in quoted:
        message = message.replace(text, " ")
    return CJK.search(message) is not None


def files_after_step(outcome, index: int):
    """Sorted relative paths of the files in the working folder right after step `index` (None if unknown), but
    for those that defining the cells made (a log a cell opens): the notebook made them, not the step."""
    listing = outcome.files_by_step[index] if index < len(outcome.files_by_step) else None
    if not isinstance(listing, list):
        return None
    defined = made_by_definitions(outcome, index)
    return [name for name in listing if name not in defined]


def made_by_definitions(outcome, index: int) -> set:
    """Files that defining the cells made in the working folder, up to step `index`."""
    return set(outcome.defined_files[index]) if index < len(outcome.defined_files) else set()


def stray_files(outcome, index: int, keep) -> list:
    """Files in the working folder after step `index` besides the scenario's own files and `keep`."""
    expected = {*outcome.scenario.files, *keep}
    return [name for name in files_after_step(outcome, index) or [] if name not in expected]


def begins_a_checkpoint(text) -> bool:
    """Whether a file's text is a checkpoint's JSON, whole or cut short (the temporary copy a save that failed
    part-way leaves): an object naming a checkpoint's field. A log's lines begin otherwise."""
    return text is not None and text.lstrip().startswith("{") and any(f'"{field}"' in text
                                                                      for field in CHECKPOINT_FIELDS)


def new_files(outcome, index: int) -> list:
    """Files that were not in the working folder before step `index` and are there after it."""
    before = files_after_step(outcome, index - 1) if index > 0 else None
    before = set(before if before is not None else outcome.scenario.files)
    return [name for name in files_after_step(outcome, index) or [] if name not in before]


def _within(path, folders: tuple) -> bool:
    return isinstance(path, str) and any(path == folder or path.startswith(folder.rstrip("/") + "/")
                                         for folder in folders)


def _writes(event: dict) -> bool:
    if event.get("op") in WRITING_OPS:
        return True
    flags = event.get("flags")
    if event.get("op") != "open" or flags is None:
        return False
    if isinstance(flags, int):
        return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
    return any(flag in str(flags) for flag in WRITING_FLAGS)


def files_written(outcome, index: int) -> list:
    """Paths that step `index` created, wrote, renamed or removed, wherever it may write: relative to the working
    folder, or whole for one elsewhere (/tmp, /dev/shm). os.path.join(outcome.workdir, name) is the whole path."""
    workdir = outcome.workdir.rstrip("/") + "/"
    began = outcome.started_at[index] if index < len(outcome.started_at) else None  # before it: the definitions
    writes = [e for e in outcome.fs_events if isinstance(e, dict) and e.get("step") == index and _writes(e)]
    # What the cells made while they were defined (a set-up cell's scratch folder in /tmp), removed by what they left
    # for the kernel's end (atexit.register(shutil.rmtree, folder), which the step's end runs), is their tidying up
    defined = tuple(e["path"] for e in writes
                    if began is not None and e["at"] <= began and isinstance(e.get("path"), str))
    touched = [e.get("path") for e in writes if (began is None or e["at"] > began)
               and not (e.get("op") in REMOVING_OPS and _within(e.get("path"), defined))]
    touched = [p.removeprefix(workdir) for p in touched if isinstance(p, str)]
    return sorted({*touched, *new_files(outcome, index)} - made_by_definitions(outcome, index))


def holds_state(data: bytes, nested: bool = True, records: bool = True) -> bool:
    """Whether written bytes hold a checkpoint (a JSON object with its messages and pendingToolUse) or a ledger
    record (unless not `records`), whatever is written around it: a whole file, pretty-printed, or inside a line of
    a log. A log line that only names the pending call ("pendingToolUse={...}") holds no checkpoint. `nested=False`:
    only an object written as one (not a value inside another object, as a JSON log entry quotes the records it
    looked at)."""
    if b"pendingToolUse" not in data and b"toolUseId" not in data:  # neither can be there: no parsing
        return False
    return any(CHECKPOINT_KEYS <= found.keys()
               or (records and found.get("type") in ("intent", "outcome") and "toolUseId" in found)
               for found in json_objects(data.decode("utf-8", errors="replace"), nested))


def json_objects(text: str, nested: bool = True):
    """Every JSON object in `text`, with the objects nested in it (`nested`), wherever it starts (after a log line's
    words)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        yield from _objects_in(value) if nested else [value]
        start = text.find("{", end)


def _objects_in(value):
    if isinstance(value, dict):
        yield value
        value = list(value.values())
    for item in value if isinstance(value, list) else ():
        yield from _objects_in(item)


def checkpoints_written(outcome, index: int, records: bool = True) -> list:
    """Where step `index` wrote a checkpoint (or a ledger record, unless not `records`: lesson 4's reconcile appends
    them), however it wrote the file, and the names it renamed or linked such a file to: relative to the working
    folder, or whole for one elsewhere (/tmp)."""
    workdir = outcome.workdir.rstrip("/") + "/"
    began = outcome.started_at[index] if index < len(outcome.started_at) else None  # before it: the definitions
    events = [e for e in outcome.fs_events if isinstance(e, dict) and e.get("step") == index
              and (began is None or e["at"] > began)]
    written = {}
    for event in events:
        if event["op"] == "write" and isinstance(event.get("data"), bytes):
            written[event.get("path")] = written.get(event.get("path"), b"") + event["data"]
    holding = {path for path, data in written.items() if isinstance(path, str) and holds_state(data, records=records)}
    holding |= {e.get("dst") for e in events if e["op"] in ("rename", "link") and e.get("path") in holding}
    return sorted(path.removeprefix(workdir) for path in holding if isinstance(path, str))


def emails_in_step(outcome, index: int) -> list:
    """The Message-IDs of the emails the grader's mail server received while step `index` ran (and while what it
    left behind lasted), whatever way they were sent."""
    return [mid for phase, mid in zip(outcome.deliveries, outcome.delivered_ids) if phase == f"step {index}"]


def output_said(output, flag_only: bool = False) -> str:
    """What the feedback says about a tool's output when it is one of the shapes a student may misjudge (an empty
    one, a long one, nothing found, a success that mentions an error or begins with one in English); "" for an
    ordinary output. `flag_only`: the feedback is about is_error alone, which a long output has nothing to do with
    (probe 12a: a stale is_error was told that the content must not be cut short)."""
    if not isinstance(output, str):
        return ""
    if output == "":
        return "（这次 execute_tool 返回的是空字符串，比如读到一个空文件：空的输出也是成功）"
    if len(output) > 2000 and not flag_only:
        return f"（这次 execute_tool 返回了 {len(output)} 个字符：整段都要放进 content，不能截短）"
    said = []
    if output.startswith("（没有"):
        said.append(f"这次 execute_tool 返回的是「{short(output.strip(''.join(INVISIBLE)), 30)}」：什么也没找到也是成功的结果，不是失败")
    if output.startswith(("ERROR", "Error", "error")):
        said.append("这次 execute_tool 返回的文本以英文的 ERROR 开头（一份日志的内容），不是以「错误」开头："
                    "只有以「错误」开头的文本才表示工具失败")
    if not output.startswith("错误") and "错误" in output:
        said.append("这次 execute_tool 返回的文本中间提到了「错误」，开头不是：只有以「错误」开头的文本才表示工具失败")
    return f"（{'；'.join(said)}）" if said else ""


UNREADABLE_SAID = {"truncated": "只写了一半（JSON 不完整）", "higher": "是更新版本的程序写的（version 比 CHECKPOINT_VERSION 大）",
                   "lower": "的 version 不对（比 CHECKPOINT_VERSION 小，或者不是整数）", "empty": "是空文件",
                   "trailing_data": "在一份完整的 JSON 后面还有别的内容", "text_version": "的 version 是字符串 \"1\"，不是整数 1",
                   "not_object": "不是一个 JSON 对象", "missing_fields": "缺了 version 等字段"}


def unreadable_problem(outcome, index: int, damaged: dict) -> str | None:
    """Why run_agent (step `index`) given a checkpoint load_checkpoint raises ValueError for (`damaged`: its "kind",
    "file" and "text") did not let the error through with no model call and the file as it was; None if it did."""
    status = outcome.steps[index]["status"]
    called = any(call.get("step") == index for call in outcome.model_calls)
    if status == StepStatus.RAISED and not called and outcome.files_after.get(damaged["file"]) == damaged["text"]:
        return None
    did = "调用了模型" if called else "没有抛出异常" if status != StepStatus.RAISED else "动了这个文件"
    return (f"path 上的检查点{UNREADABLE_SAID[damaged['kind']]}，load_checkpoint 读它会抛出 ValueError：这时 run_agent 要"
            f"经过 load_checkpoint、让这个错误抛出去，把坏文件留在原处等人来看；你的 run_agent {did}。当成没有检查点从头"
            "再来，或者自己读文件、跳过版本检查接着做，之前的轮次就白做了，已经发出去的邮件还可能再发一遍")


def full_disk_problem(outcome, index: int) -> str | None:
    """Why run_agent (step `index`, a task whose every save raises OSError from save point A on: the disk is full)
    was not stopped by it: the error must go through before any tool runs; None if it was."""
    status, ran = outcome.steps[index]["status"], [c["name"] for c in outcome.tool_calls if c["step"] == index]
    when = "第一次存档（存档点 A，执行工具之前）起磁盘就满了，save_checkpoint 每次都抛出 OSError"
    if status not in (StepStatus.RETURNED, StepStatus.RAISED):
        return f"{when}：" + problem(outcome, index, "run_agent")
    if status == StepStatus.RAISED and not ran:
        return None
    said = f"执行了 {short(ran)}" if ran else "返回了 state"
    first_tool = min((c["seq"] for c in outcome.tool_calls if c["step"] == index), default=None)
    if first_tool is not None and not any(c["step"] == index and c["name"] == "save_checkpoint" and c["seq"] < first_tool
                                          for c in outcome.standin_calls):  # no save was tried: nothing was swallowed
        return (f"你的 run_agent 执行 {short(ran[0])} 之前没有调用 save_checkpoint：每一轮执行工具之前都要先存存档点 A"
                "（连同 pendingToolUse），这一次磁盘满了，存档点 A 会抛出 OSError、让 run_agent 停在执行工具之前")
    return (f"{when}，你的 run_agent 却接着做了下去（{said}）：存不下存档点 A 就执行工具，这时崩溃，重启后谁也不知道"
            "这次调用做过没有（邮件可能发了两遍）。保存失败要让异常抛给调用方，可以重试，重试不成就停下")
