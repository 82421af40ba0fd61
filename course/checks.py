"""The notebook's visible checks: each one runs your function and says in Chinese what went wrong.

    from course import checks
    checks.check_save_load(save_checkpoint, load_checkpoint)
    checks.check_run_agent(run_agent, globals())

A visible check is a hint, not the grade: it looks at a few situations and at the
mistakes students usually make; the hidden tests look at more. Where a check needs
to see what your code does (which tools ran, when the file was fsynced, what was
saved at each save point), it watches through stand-ins: for the time of the check
it puts a recording wrapper in place of `os.fsync`, of the client's
`messages.create`, or of a name in the notebook (`execute_tool`, `save_checkpoint`,
`reconcile`), and puts the original back afterwards.

Imported inside a notebook, it also makes every error a cell raises end with a Chinese
explanation (`explain_errors_in_chinese`). This module holds no solution: it knows what a
right answer does, not how to write it.
"""
import bisect
import contextlib
import copy
import functools
import itertools
import json
import os
import re
import shutil
import site
import stat
import sys
import sysconfig
import tempfile
import threading
import types
import unicodedata
from pathlib import Path

import anthropic

from .mail import MailServer
from .model import (InvalidRequest, answer, asks_to_redo, check_tool_pairing, make_client, new_id, offline_client,
                    reads_as_unknown, request_params, says_unknown, skips_looking)
from .samples import load_sample
from .tools import execute_tool as course_execute_tool

PASSED = "可见检查通过 ✓"
CHECKPOINT_FIELDS = ("version", "task", "turns", "tokensUsed", "messages", "pendingToolUse")  # the format's, exactly
COURSE_READ_ONLY = {"read_file", "grep", "list_dir", "web_search"}  # course tools that only look
_READ_ONLY_INPUTS = {"grep": {"pattern": "结论", "path": "./notes"}, "list_dir": {"path": "./notes"},
                     "web_search": {"query": "检查点 恢复"}}
# Tools the lesson never names: an obvious verb, a read-only tool's name at the front, an unusual verb, a name that
# sounds like reading (a deny-list of verbs, a test of how a name begins, or a guess by the name lets the last three
# through). Lesson 4's checks use the first two.
UNHEARD_OF_TOOLS = (("delete_branch", {"branch": "release-2026-12"}),
                    ("read_file_and_purge", {"path": "./notes/meeting-08-25.md"}),
                    ("freeze_account", {"account": "ops-team"}),
                    ("get_invoice", {"invoice": "INV-0831"}),
                    ("READ_FILE", {"path": "./notes/meeting-08-25.md"}),  # names are compared as written, and whole:
                    ("email", {"to": "team@example.com", "subject": "本周结论"}),  # a part of list_sent_emails
                    ("mcp__notes__read_file", {"path": "./notes/meeting-08-25.md"}),  # another server's, namespaced
                    ("read-file", {"path": "./notes/meeting-08-25.md"}),  # another convention's spelling: another tool
                    ("listDir", {"path": "./notes"}))
UNHEARD_OF_TOOL = UNHEARD_OF_TOOLS[0]
# What a read-only tool may truly return besides its usual text: nothing (an empty file or folder), its words for
# nothing found, a success that mentions an error (a log line in a file), a long text, and one that begins with an
# error in English (a log file's first line). Only a text that starts with "错误" is a failure, and a tool_result
# carries the whole text.
TOOL_OUTPUT_SHAPES = {
    "empty": lambda output: "",
    "nothing_found": lambda output: "（没有匹配的行）",
    "mentions_error": lambda output: f"{output}\n2026-09-01 09:14 错误：磁盘空间不足（已处理，这一行是文件的内容）",
    "long": lambda output: output + "".join(f"\n附录第 {line} 行：会议纪要的补充材料。" for line in range(600)),
    "english_error": lambda output: f"ERROR 2026-09-01 09:14:03 disk quota exceeded (retried, ok)\n{output}",
}
OUTPUT_SAID = {"empty": "空字符串（比如读到一个空文件）", "nothing_found": "「（没有匹配的行）」",
               "mentions_error": "一段中间提到「错误」的文本", "long": "一段很长的文本",
               "english_error": "一段以英文的 ERROR 开头的文本（一份日志）"}


LONG_CHECKPOINT_BYTES = (2 * 1024 + 64) * 1024  # a long conversation's checkpoint: past a round cap of 1 or 2 MiB
APPENDIX_LINE = "\n附录第 {} 行：会议纪要的补充材料。"  # a line of the long file the model read in full


@functools.cache
def _appendix() -> tuple:
    """Lines of a long file, more than any checkpoint needs to be long: their text, where each ends in it, and how
    many bytes the lines up to each add to a checkpoint's JSON (a line break is written there as two: "\\n")."""
    lines = [APPENDIX_LINE.format(number) for number in range(LONG_CHECKPOINT_BYTES // 32)]
    return ("".join(lines), list(itertools.accumulate(map(len, lines))),
            list(itertools.accumulate(len(line.encode()) + 1 for line in lines)))


def lengthened(cp: dict) -> dict:
    """A copy of `cp` after the model read a long file in full (its first read_file result, lengthened): a
    checkpoint of LONG_CHECKPOINT_BYTES or more, as a long conversation makes; a load that reads only a first part,
    to guard against huge files, fails on it."""
    cp = copy.deepcopy(cp)
    blocks = [block for message in cp["messages"] if isinstance(message["content"], list)
              for block in message["content"]]
    call = next(block["id"] for block in blocks if block["type"] == "tool_use" and block["name"] == "read_file")
    read = next(block for block in blocks if block["type"] == "tool_result" and block["tool_use_id"] == call)
    text, ends, grown = _appendix()
    missing = LONG_CHECKPOINT_BYTES - len(json.dumps(cp, ensure_ascii=False).encode())
    read["content"] += text[:ends[bisect.bisect_left(grown, missing)]]
    return cp


class CheckFailed(AssertionError):
    """A visible check did not pass; the message says why, in Chinese."""


def fail(message: str):
    raise CheckFailed(message)


def expect(condition, message: str):
    if not condition:
        fail(message)


def short(value, limit: int = 80) -> str:
    """A value in one line of at most `limit` characters, for a message: a string as it is (quoted if it is empty or
    blank, which would read as nothing), anything else as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    text = " ".join(text.split()) or json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call(what: str, function, *args, **kwargs):
    """Run the student's function; an exception becomes a Chinese message naming the function."""
    try:
        return function(*args, **kwargs)
    except CheckFailed:
        raise
    except NotImplementedError:
        fail(f"{what} 还没有写完（仍然是 raise NotImplementedError）：先完成它的答题单元格并运行。")
    except anthropic.BadRequestError as exc:
        raise CheckFailed(f"{what} 调用模型时 API 返回了 400：{api_advice(exc)}") from exc
    except Exception as exc:
        raise CheckFailed(f"{what} 抛出了 {type(exc).__name__}（{short(str(exc), 120)}）。{explain(exc)}"
                          "上面的 traceback 最后几行指向出错的那一行。") from exc


def call_in_place(what: str, function, *args):
    """call(), and the student's function must leave the process in the current folder it found."""
    __tracebackhide__ = True
    here = os.getcwd()
    value = call(what, function, *args)
    moved = os.getcwd()
    if moved != here:
        os.chdir(here)  # the notebook's relative paths work again
        fail(f"{what} 把进程的当前文件夹从 {here} 换成了 {moved}，没有换回来：之后 notebook 里的相对路径"
             "（默认的检查点、台账也是）都会解析到别处，下次保存、加载就找错了地方。要 fsync 文件夹，"
             "用 os.open(文件夹的路径, os.O_RDONLY) 打开它，不用 os.chdir。")
    return value


def explain(error: BaseException) -> str:
    """What an exception raised by a student's code says, in one Chinese sentence, without guessing a cause."""
    text = str(error)
    if isinstance(error, KeyError):
        key = error.args[0] if error.args else "?"
        return f"代码用键 {key!r} 去取一个字典里的值，这个字典里没有这个键。"
    if isinstance(error, AttributeError) and "'dict' object has no attribute" in text:
        return ("代码在一个字典上用了「.属性」：messages 和检查点里的消息、块都是字典，要用 block[\"type\"] 来读；"
                "只有 response.content 里的块是 SDK 对象，才用 block.type 读。")
    if isinstance(error, (TypeError, AttributeError)) and "not subscriptable" in text:
        return ("代码在一个对象上用了 [\"键\"]：response.content 里的块是 SDK 对象，要用 block.type、block.id、"
                "block.name、block.input 来读；存进 messages 之前用 assistant_message(response) 把响应变成字典。")
    if isinstance(error, TypeError) and "is not JSON serializable" in text:
        return ("要写进 JSON 的内容里有 Python 对象（多半是 SDK 的块）：messages 里只能放字典、列表、字符串和数字，"
                "assistant 消息用 assistant_message(response) 来得到。")
    if isinstance(error, AttributeError) and getattr(error, "obj", None) is not None:
        return (f"代码在一个 {type(error.obj).__name__} 类型的值上用了 .{error.name}，这种值没有它"
                "（例如读出的 JSON 不一定是字典，要先用 isinstance 判断）。")
    if isinstance(error, FileNotFoundError) and error.filename is not None:  # raised by the student's own code: no name
        return f"找不到文件或文件夹 {error.filename!r}。"
    if isinstance(error, PermissionError):
        if os.name == "nt" and error.filename and os.path.isdir(error.filename):
            return (f"没有权限打开 {error.filename!r}：Windows 上 os.open 打不开文件夹。fsync 文件夹只在 POSIX 系统上做，"
                    'Windows 上跳过这一步（if os.name != "nt": …）。')
        return f"没有权限打开 {error.filename!r}。"
    if isinstance(error, TypeError):
        return "某个函数收到的参数个数或类型不对。"
    return ""


def api_advice(error) -> str:
    """What a 400 from the Messages API means for this lesson, in Chinese."""
    message = str(getattr(error, "body", None) and error.body.get("error", {}).get("message") or error)
    # the API's location ("messages.3.content.1"), also inside the SDK's "Error code: 400 - {...}" wording
    found = re.search(r"messages(?:\.[\w]+)*(?=:)", message)
    where = found.group(0) if found else message.split(":", 1)[0]
    if "without `tool_result`" in message:
        return (f"发出的对话里（{where}）有一个 tool_use，紧跟着的那条 user 消息里却没有与它配对的 tool_result。"
                "看看这次发给模型的 messages 的最后几条：每个 tool_use 后面要紧跟一条含同一 id 的结果的 user 消息。")
    if "unexpected `tool_use_id`" in message:
        return f"{where} 有一个 tool_result，它的 tool_use_id 在紧挨着的上一条 assistant 消息里找不到。"
    if "must come first" in message:
        return f"{where}：tool_result 块要排在 user 消息 content 的最前面。"
    if "valid boolean" in message:
        return f"{where}：is_error 只能是布尔值 True 或 False（也可以不写），不能是字符串、数字或 null。"
    if "ids must be unique" in message:
        return (f"{where}：同一个 tool_use id 在对话里出现了两次。检查点的 messages 里已有那条 assistant 消息，"
                "续跑只差补一个 tool_result：不要把 pendingToolUse 再加成一条 assistant 消息。")
    if "Extra inputs are not permitted" in message:
        return (f"{where}：API 不认这个字段。tool_result 只能有 type、tool_use_id、content、is_error（和 cache_control）："
                "说明写进 content。")
    if "first message must use" in message:
        return "发出的 messages 的第一条不是 user 消息。"
    if "must be non-empty" in message:
        return ('发出的 messages 里有一个空的文字块（{"type": "text", "text": ""}），API 不收。工具的输出是空字符串时'
                "（空文件、空文件夹），不要把它包成文字块：content 直接写这段文本，或者写一句说明，例如「（没有输出）」。")
    return message


def text_of(content) -> str:
    """A tool_result's content as text: a string, or a list of text blocks (both are valid for the API)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def carries_output(content, output: str) -> bool:
    """Whether a tool_result's content carries `output`, the text the tool returned: words around it are allowed,
    and so is leaving off the whitespace around it (a file's last newline), which changes nothing the model reads."""
    return output.strip() in text_of(content)


KEEP_CHECKPOINT_ADVICE = ("检查点要一直留在 path 上，任务做完也一样：下次启动时没有检查点，run_agent 会把整个任务"
                          "（连同发信）从头再做一遍")


def extra_fields_said(state, what: str) -> str | None:
    """Feedback naming the fields of checkpoint `state` the format does not have; None if it has none. Said on its
    own: compared with another checkpoint, an extra field reads as a difference even where both have it."""
    extra = sorted(key for key in state if key not in CHECKPOINT_FIELDS) if isinstance(state, dict) else []
    named = "、".join(short(key) if isinstance(key, str) else str(key) for key in extra)
    return extra and (f"{what}里有检查点格式没有的字段 {named}：检查点恰好六个字段"
                      f"（{'、'.join(CHECKPOINT_FIELDS)}），JavaScript 版和别的程序都按这个格式读它；"
                      "想多记的东西（例如排查用的信息）写进日志") or None


def unknown_wording_problem(content: str) -> str | None:
    """Why the course's model would not read `content`, the is_error result of a call nobody knows the outcome of,
    as "unknown, look first" (in Chinese, after the result's name); None when it would (course.model.reads_as_unknown)."""
    redo = asks_to_redo(content)
    if redo:
        return f"叫模型「{redo}」，没让它先确认现状：这次调用可能已经生效，模型照做就会再做一次（再发一封信）"
    skip = skips_looking(content)
    if skip:
        return (f"叫模型「{skip}」：这次调用的结果没人知道（可能已经生效，也可能没有），要让模型先确认现状；"
                "当作做过了，没发出去的信就少了一封")
    if not reads_as_unknown(content, True):
        return ("读起来像工具自己失败了（以「错误」开头，或说它失败了、没有生效，却没说结果未知、请先确认）："
                "模型会以为这次调用没有生效，可能再做一次（再发一封信）")
    if not says_unknown(content):
        return ("没说这次调用的结果未知（可能已经生效，也可能没有），也没让模型先确认现状：只说服务器连不上，模型会过一会儿"
                "再做一次（再发一封信）；说它已经做过了，没发出去的信就少了一封")
    return None


def call_text(call: dict | None) -> str:
    """A tool call (a tool_use block or pendingToolUse) in one line: name(input), id."""
    if not call:
        return "null"
    return f"{call.get('name')}({json.dumps(call.get('input', {}), ensure_ascii=False)})，id {call.get('id')}"


def describe_block(block: dict) -> str:
    """One content block in a line of Chinese: text, tool_use or tool_result (the notebooks' describe() uses it)."""
    kind = block.get("type")
    if kind == "tool_use":
        return f"调用 {call_text(block)}"
    if kind == "tool_result":
        flag = "（is_error）" if block.get("is_error") else ""
        return f"结果{flag} → {block.get('tool_use_id')}：{text_of(block.get('content'))}"
    return text_of([block])


def describe_reply(reply: dict) -> str:
    """A Messages API reply (the JSON body) as the student reads it: its stop reason and its blocks in order."""
    blocks = [f"工具调用 {b.get('name')}" if b.get("type") == "tool_use" else "文字" for b in reply.get("content") or []]
    return f"停止原因是 {reply.get('stop_reason')}，内容块依次是 [{'、'.join(blocks) or '没有内容'}]"


@contextlib.contextmanager
def standing_in(namespace: dict, name: str, stand_in):
    """Put `stand_in` under `name` in the notebook's namespace for the time of a check."""
    missing = object()
    original = namespace.get(name, missing)
    namespace[name] = stand_in
    try:
        yield
    finally:
        if original is missing:
            namespace.pop(name, None)
        else:
            namespace[name] = original


FILE_CAPABILITIES = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH: what lets root read any file


def _give_up_file_capabilities() -> None:
    """The calling thread stops using the capabilities that let root read any file (Linux keeps them per
    thread), so that mode bits bind it as they bind a process without privileges. Elsewhere (Windows, macOS,
    or a test that plays Windows): nothing to do, and ctypes is not even imported."""
    if os.name == "nt" or not sys.platform.startswith("linux"):
        return
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: low words, then high words
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    data[0] &= ~FILE_CAPABILITIES
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def unprivileged(function, *args):
    """function(*args), run in a thread of its own without the capabilities that let root read any file: a
    file of mode 000 is unreadable there, as for a student's notebook or the grader's sandbox. Returns what
    it returned, or raises what it raised."""
    ended = {}

    def run():
        try:
            _give_up_file_capabilities()
            ended["value"] = function(*args)
        except BaseException as error:  # noqa: BLE001 - handed to the caller as it was
            ended["error"] = error

    thread = threading.Thread(target=run, name="unprivileged")
    thread.start()
    thread.join()
    if "error" in ended:
        raise ended["error"]
    return ended["value"]


_scratch_folders: list = []  # made by the checks now running; each check removes its own when it ends


def _scratch(prefix: str) -> Path:
    """A new folder for a check, its path resolved: an answer that resolves the path it is given (the temporary
    folder is reached through a symlink on a Mac: /var -> /private/var) still names the same one."""
    folder = Path(tempfile.mkdtemp(prefix=prefix)).resolve()
    _scratch_folders.append(folder)
    return folder


def leaves_no_scratch(check):
    """A visible check that removes the folders it made however it ends: a student runs the checks many times."""
    @functools.wraps(check)
    def checking(*args, **kwargs):
        __tracebackhide__ = True
        made_before = len(_scratch_folders)
        try:
            return check(*args, **kwargs)
        finally:
            while len(_scratch_folders) > made_before:
                shutil.rmtree(_scratch_folders.pop(), ignore_errors=True)
    return checking


# --- save_checkpoint / load_checkpoint -------------------------------------------------------

class _DiskEvents:
    """Records fsyncs (of a file or of a folder), renames and deletions while a save runs.

    `sizes` holds the file's size at each of its fsyncs, `sources` the folder each
    rename moved a file out of (its identity, and its path unless only a descriptor named it),
    `folders` which folder each folder fsync was (its event's index and identity): what a power
    cut would keep, whether the rename stayed in one folder (one file system) and whether the
    folder made durable is the checkpoint's, are all read off what happened. A file's or a
    folder's identity is its (st_dev, st_ino), so a name given with dir_fd (openat, renameat)
    or through a symlink is the file it names. A file
    opened with O_SYNC or O_DSYNC is on disk as each write returns (POSIX), so its
    rename counts as renaming a file fsynced just before; a pwritev with RWF_DSYNC or
    RWF_SYNC (Linux) is on disk when it returns, as if the file were fsynced then. Linux's
    os.sync() returns once every file system is written out: every file and folder the checks
    made counts as fsynced then.
    """

    SYNCED_WRITES = os.O_SYNC | getattr(os, "O_DSYNC", 0) if hasattr(os, "O_SYNC") else 0
    SYNCED_WRITE = getattr(os, "RWF_DSYNC", 0) | getattr(os, "RWF_SYNC", 0)  # pwritev's per-write O_DSYNC, O_SYNC

    def __init__(self):
        self.events, self.sizes, self.sources, self.folders = [], [], [], []
        self.moved = []  # the name of each file a rename moved (a temporary file's)
        self.synced_writes = set()  # identities of the files opened with O_SYNC / O_DSYNC
        self._pid, self._relay = os.getpid(), None  # a pipe from the processes the watched code forks

    def _add(self, kind: str, value) -> None:
        """Record `value` in self.<kind>. In a process the watched code forked (a save made in a child) the records
        go to this process too, through the relay: the checks read this one's."""
        (self.synced_writes.add if kind == "synced_writes" else getattr(self, kind).append)(value)
        if self._relay is not None and os.getpid() != self._pid:
            try:
                os.write(self._relay[1], (json.dumps([kind, value]) + "\n").encode())
            except OSError:  # a full pipe: the check sees less, as without the relay
                pass

    def _relayed(self) -> None:
        """Take in what forked processes recorded, in the order they did, and close the relay."""
        read, write = self._relay
        self._relay = None
        os.close(write)
        os.set_blocking(read, False)
        received = b""
        try:
            while chunk := os.read(read, 65536):
                received += chunk
        except BlockingIOError:  # a child still running holds the pipe open: what it wrote so far
            pass
        finally:
            os.close(read)
        for line in received.decode().splitlines():
            kind, value = json.loads(line)
            self._add(kind, _as_tuples(value))

    def _open(self, real):
        def open_(path, flags, *args, **kwargs):
            fd = real(path, flags, *args, **kwargs)
            if flags & self.SYNCED_WRITES:
                self._add("synced_writes", _identity(os.fstat(fd)))
            return fd
        return open_

    def _pwritev(self, real):
        def pwritev(fd, buffers, offset, flags=0):
            written = real(fd, buffers, offset, flags)
            if flags & self.SYNCED_WRITE:
                self._add("events", ("fsync", "file"))
                self._add("sizes", os.fstat(fd).st_size)
            return written
        return pwritev

    def _unlink(self, real):
        def unlink(path, *args, **kwargs):
            if isinstance(path, (str, bytes, os.PathLike)):
                self._add("events", ("unlink", _name(path)))
            return real(path, *args, **kwargs)
        return unlink

    def _fsync(self, real):
        def fsync(fd):
            target = fd if isinstance(fd, int) else fd.fileno()
            status = os.fstat(target)
            kind = "folder" if stat.S_ISDIR(status.st_mode) else "file"
            self._add("events", ("fsync", kind))
            if kind == "file":
                self._add("sizes", status.st_size)
            else:
                self._add("folders", (len(self.events) - 1, _identity(status)))
            return real(fd)
        return fsync

    def _sync(self, real):
        def sync():
            real()
            for folder in _scratch_folders:
                for place in (folder, *folder.rglob("*")):
                    status = place.lstat()
                    if stat.S_ISDIR(status.st_mode):
                        self._add("events", ("fsync", "folder"))
                        self._add("folders", (len(self.events) - 1, _identity(status)))
                    elif stat.S_ISREG(status.st_mode):
                        self._add("events", ("fsync", "file"))
                        self._add("sizes", status.st_size)
        return sync

    def _rename(self, real):
        def rename(source, target, *, src_dir_fd=None, dst_dir_fd=None):
            try:
                moved = os.stat(source, dir_fd=src_dir_fd, follow_symlinks=False)
                parent = os.path.dirname(os.fsdecode(source)) or "."
                folder = _identity(os.stat(parent, dir_fd=src_dir_fd))
                shown = os.path.abspath(parent) if src_dir_fd is None or os.path.isabs(parent) else None
                name = _name(target)
            except (OSError, TypeError):  # the rename itself fails, and says why
                return real(source, target, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
            if _identity(moved) in self.synced_writes:
                self._add("events", ("fsync", "file"))
                self._add("sizes", moved.st_size)
            self._add("events", ("rename", name))
            self._add("sources", (folder, shown))
            self._add("moved", os.path.basename(os.fsdecode(source)))
            return real(source, target, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        return rename

    @contextlib.contextmanager
    def watching(self, function=None):
        """Watch os's calls; also where `function` finds one of them bound before the watch began under a name of
        its own (`sync_data = os.fdatasync`, `from os import replace` in a module, a default `_sync=os.fsync`, a
        factory's `fsync` in a closure: the places _swap_held looks at)."""
        real = {name: getattr(os, name) for name in ("fsync", "fdatasync", "replace", "rename", "open", "unlink",
                                                     "remove", "pwritev", "sync") if hasattr(os, name)}
        wrapped = {"fsync": self._fsync(real["fsync"]), "fdatasync": self._fsync(real["fdatasync"]),
                   "replace": self._rename(real["replace"]), "rename": self._rename(real["rename"]),
                   "open": self._open(real["open"]), "unlink": self._unlink(real["unlink"]),
                   "remove": self._unlink(real["remove"])}
        for name, watch in (("pwritev", self._pwritev), ("sync", self._sync)):  # neither is on Windows
            if name in real:
                wrapped[name] = watch(real[name])
        for name, stand_in in wrapped.items():
            setattr(os, name, stand_in)
        _swap_held(function, {id(real[name]): stand_in for name, stand_in in wrapped.items()})
        self._relay = os.pipe() if hasattr(os, "fork") else None
        try:
            yield self
        finally:
            if self._relay is not None:
                self._relayed()
            for name, original in real.items():
                setattr(os, name, original)
            # the same places again: also a module first imported during the watch, which took stand-ins from os
            _swap_held(function, {id(stand_in): real[name] for name, stand_in in wrapped.items()})

    def opened_synced(self, path) -> bool:
        """Whether the file now at `path` was opened with O_SYNC or O_DSYNC."""
        return os.path.exists(path) and _identity(os.stat(path)) in self.synced_writes

    def file_synced(self, path) -> bool:
        """Whether a file was made durable: an fsync of a file, or `path` opened with O_SYNC or O_DSYNC."""
        return ("fsync", "file") in self.events or self.opened_synced(path)

    def index(self, event) -> int | None:
        return self.events.index(event) if event in self.events else None


def _as_tuples(value):
    """JSON's lists back as the tuples they were written as."""
    return tuple(_as_tuples(item) for item in value) if isinstance(value, list) else value


def _identity(status: os.stat_result) -> tuple:
    """Which file or folder a stat result is, however it was named."""
    return status.st_dev, status.st_ino


def _name(path) -> str:
    """The last part of a path given as str, bytes or a Path."""
    return Path(os.fsdecode(path)).name


# Where the standard library and installed packages live: the checks never change their modules.
_INSTALLED = tuple({folder for key in ("stdlib", "platstdlib", "purelib", "platlib")
                    for folder in (sysconfig.get_path(key), os.path.realpath(sysconfig.get_path(key)))}
                   | {site.getusersitepackages()})


def _user_namespaces() -> list:
    """The globals of the modules loaded from the student's own files (a %%writefile module)."""
    found = []
    for module in list(sys.modules.values()):
        names = vars(module) if isinstance(module, types.ModuleType) else {}
        if isinstance(names.get("__file__"), str) and not names["__file__"].startswith(_INSTALLED):
            found.append(names)
    return found


def _swap_held(function, swaps: dict) -> None:
    """Put swaps[id(value)] in place of each such value found where `function` can reach it: in its globals and
    the globals of the student's modules, and in the defaults and closure cells of `function` and of the functions
    defined in those globals, and one level further, of the functions in their closures (what a factory's inner
    function closes over; deeper nesting is not a style an answer cell takes)."""
    function = getattr(function, "__func__", function)  # a bound method
    namespaces = _user_namespaces()
    functions = []
    if isinstance(function, types.FunctionType):
        namespaces.append(function.__globals__)
        functions.append(function)
    functions += [value for names in namespaces for value in list(names.values())
                  if isinstance(value, types.FunctionType) and value.__globals__ is names]
    functions += [value for f in functions for value in map(_contents, f.__closure__ or ())
                  if isinstance(value, types.FunctionType)]
    for names in namespaces + [f.__kwdefaults__ for f in functions if f.__kwdefaults__]:
        for key, value in list(names.items()):
            if id(value) in swaps:
                names[key] = swaps[id(value)]
    for f in functions:
        if f.__defaults__ and any(id(value) in swaps for value in f.__defaults__):
            f.__defaults__ = tuple(swaps.get(id(value), value) for value in f.__defaults__)
        for cell in f.__closure__ or ():
            if id(_contents(cell)) in swaps:
                cell.cell_contents = swaps[id(_contents(cell))]


def _contents(cell):
    """What a closure cell holds."""
    try:
        return cell.cell_contents
    except ValueError:  # a cell not filled yet
        return None


def _without(text: str, folder: Path) -> str:
    """The message with the folder's path taken out, so digits in a random path count for nothing."""
    for spelling in (str(folder), os.path.realpath(folder)):
        text = text.replace(spelling, " ")
    return text


def _mentions(text: str, number: int) -> bool:
    return re.search(rf"(?<!\d){number}(?!\d)", text) is not None


def _load_error(load_checkpoint, path: Path, what: str) -> ValueError:
    """The ValueError load_checkpoint raises for a broken file, checked for the path and for Chinese."""
    try:
        value = load_checkpoint(path)
    except ValueError as err:
        expect(path.name in str(err), f"文件{what}时的报错要写出是哪个文件（路径），你的是：{short(str(err))}")
        expect(re.search("[\u4e00-\u9fff]", _without(str(err), path.parent)),
               f"文件{what}时的报错要用中文写给用户看，你的是：{short(str(err))}")
        return err
    except NotImplementedError:
        fail("load_checkpoint 还没有写完（仍然是 raise NotImplementedError）。")
    except Exception as err:
        fail(f"文件{what}时应该抛 ValueError，你的代码抛出了 {type(err).__name__}（{short(str(err))}）。{explain(err)}")
    fail(f"文件{what}时应该抛 ValueError，你的函数却返回了 {short(value)}：返回值会被当成能用的检查点。")


@leaves_no_scratch
def check_save_load(save_checkpoint, load_checkpoint, checkpoint_version: int = 1) -> None:
    __tracebackhide__ = True
    folder = _scratch("check-save-")
    target = folder / "checkpoint.json"
    state = load_sample("cpB")

    disk = _DiskEvents()
    with disk.watching(save_checkpoint):
        call_in_place("save_checkpoint", save_checkpoint, copy.deepcopy(state), target)
    expect(target.exists(), "save_checkpoint 运行完了，目标文件却不存在：最后要把临时文件改名成 path。")
    back = call("load_checkpoint", load_checkpoint, target)
    expect(back == state, "保存后读回来的内容和原来不一样：保存和读取都不应该改动 state 里的任何字段。")
    try:  # the file itself, as another program reads it: load_checkpoint, which read it back, is the student's own
        added = extra_fields_said(json.loads(target.read_bytes().decode("utf-8")), "save_checkpoint 写进文件的状态")
    except ValueError as exc:  # UnicodeDecodeError too
        raw = target.read_bytes()
        kind = ("以 BOM（EF BB BF）开头" if raw.startswith(b"\xef\xbb\xbf") else "是 gzip 压缩过的数据"
                if raw.startswith(b"\x1f\x8b") else f"读不出来（{short(str(exc), 60)}）")
        fail(f"save_checkpoint 写出的文件{kind}：检查点要写成 UTF-8 的 JSON 文本（encoding=\"utf-8\"，不带 BOM、不压缩），"
             "别的程序（另一版 load_checkpoint、第 4 课的代码、监控脚本）都按这个格式读它，你自己的 load_checkpoint 读得回来不算数。")
    expect(added is None, f"{added}。")
    extra = sorted(p for p in folder.iterdir() if p.name != "checkpoint.json")
    expect(not extra, f"保存完成后文件夹里多出了文件：{[p.name for p in extra]}。临时文件最后要改名成目标文件"
                      + ("；空的锁文件、标记文件也不要留下，文件夹里只该有检查点。要防两个进程同时保存，可以直接对 path 所在的"
                         "文件夹加锁（fcntl.flock 用在 os.open(文件夹, os.O_RDONLY) 得到的描述符上）。"
                         if all(p.is_file() and p.stat().st_size == 0 for p in extra) else "。"))
    renamed = disk.index(("rename", "checkpoint.json"))
    expect(renamed is not None, "保存时没有把临时文件改名成 checkpoint.json（os.replace）：直接写目标文件，"
                                "进程在写到一半时被杀，旧的检查点也就没了。")
    source, shown = disk.sources[[e for e in disk.events if e[0] == "rename"].index(("rename", "checkpoint.json"))]
    expect(source == _identity(folder.stat()),
           f"临时文件在 {shown or 'src_dir_fd 指向的另一个文件夹'} 里，目标文件在 {folder} 里：临时文件要建在目标文件所在的文件夹里"
           "（tempfile.mkstemp(dir=path.parent)），跨文件系统的 os.replace 不是原子的，甚至会直接报错。")
    file_synced = [i for i, e in enumerate(disk.events) if e == ("fsync", "file")]
    folder_synced = [i for i, e in enumerate(disk.events) if e == ("fsync", "folder")]
    expect(file_synced or folder_synced, "保存时一次 os.fsync 也没有调用：原子改名挡得住进程崩溃，挡不住断电——"
                                         "数据可能还在操作系统的缓存里，没有写到磁盘上。")
    expect(any(i < renamed for i in file_synced),
           "改名之前没有对临时文件 fsync：断电之后，名字可能已经指向新文件，新文件的内容却还没落盘。")
    synced = max((size for i, size in zip(file_synced, disk.sizes) if i < renamed), default=0)  # one size per fsync
    written = target.stat().st_size
    expect(synced >= written,
           f"fsync 临时文件的那一刻，文件里只有 {synced} 字节，保存完的文件却有 {written} 字节："
           "fsync 之后又写进了内容，断电时这部分可能丢失。多半是 Python 自己缓冲区里的内容在关闭文件时才写出：先 flush，再 fsync。")
    if os.name == "nt":
        print("（这台电脑是 Windows：打不开文件夹，也就不要求改名之后 fsync 文件夹。）")
    else:
        expect(any(i > renamed for i in folder_synced),
               "改名之后没有 fsync 文件夹：「这个名字指向哪个文件」记在目录里，目录不落盘，改名在断电后可能消失。"
               "做法：用 os.open(文件夹的路径, os.O_RDONLY) 打开文件夹，对得到的描述符 os.fsync，再 os.close。")
        expect(_identity(folder.stat()) in {identity for i, identity in disk.folders if i > renamed},
               f"改名之后 fsync 的不是 path 所在的文件夹（{folder.name}）：改名记在目标文件所在文件夹的目录里，"
               "要 fsync 的是 os.path.dirname(path)（只有文件名、dirname 是空字符串时才是当前文件夹），"
               "不是当前文件夹或别的文件夹。")

    expect(call("load_checkpoint", load_checkpoint, folder / "missing.json") is None,
           "文件不存在时 load_checkpoint 应该返回 None，表示「这是一个新任务」。")
    long, at = lengthened(state), folder / "long.json"
    at.write_text(json.dumps(long, ensure_ascii=False, indent=2), encoding="utf-8")
    what = f"load_checkpoint 读一份超过 {LONG_CHECKPOINT_BYTES // 1024} KB 的检查点（长对话：模型读过一个很长的文件）"
    advice = "合法的检查点多大都要整个读出来：不能只读前一部分，也不能因为它大就拒收。"
    try:
        back = call(what, load_checkpoint, at)
    except CheckFailed as failed:
        raise CheckFailed(f"{failed}{advice}") from failed
    expect(back == long, f"{what}，读出来的和文件里的不一样：{advice}")
    at.unlink()

    broken = {**state, "messages": state["messages"] + [object()]}  # json.dump fails part-way through
    try:
        save_checkpoint(broken, target)
    except NotImplementedError:
        fail("save_checkpoint 还没有写完（仍然是 raise NotImplementedError）。")
    except Exception:
        pass
    else:
        fail("一次写到一半就出错的保存（state 里有 JSON 表示不了的对象），你的 save_checkpoint 却正常返回了："
             "调用方会以为已经存好。清理临时文件之后，要把异常抛出去（raise）。")
    try:
        survived = load_checkpoint(target)
    except ValueError:
        survived = None
    expect(survived == state, "一次失败的保存把原来的检查点弄坏了：在新内容完整写好之前，不能动目标文件。")
    left = sorted(p.name for p in folder.iterdir() if p.name != "checkpoint.json")
    expect(not left, f"保存失败之后，文件夹里留下了 {left}：出错时要先删掉临时文件，再把异常抛出去。")

    newer = {**state, "turns": state["turns"] + 1}
    before = open_paths()  # after a first save: what a save keeps open for the kernel's life is open by now
    disk = _DiskEvents()
    with disk.watching(save_checkpoint):
        call("save_checkpoint（覆盖已有的检查点）", save_checkpoint, copy.deepcopy(newer), target)
    renamed = disk.index(("rename", "checkpoint.json"))
    expect(("unlink", "checkpoint.json") not in disk.events[:renamed],
           "覆盖已有的检查点时，改名之前先删掉了旧的 checkpoint.json：删掉和改名之间断电，path 上就一个检查点也没有了。"
           "os.replace 本身就会原子地替换旧文件，不用先删。")
    expect(call("load_checkpoint", load_checkpoint, target) == newer, "覆盖已有的检查点之后，读回来的不是新存的内容。")
    target.write_bytes(target.read_bytes()[:100])  # broken between two saves, as the notebook's demo breaks it
    call("save_checkpoint（同一个状态再存一次）", save_checkpoint, copy.deepcopy(newer), target)
    try:
        again = load_checkpoint(target)
    except ValueError:
        again = None
    expect(again == newer, "同一个状态存第二次，这之间 path 上的文件被写坏了（像 notebook 里原地覆盖的演示那样）："
                           "你的 save_checkpoint 返回之后，path 上仍然不是这个状态。每次保存都要真的写一遍，"
                           "不能按内存里记着的「上次写过什么」跳过：磁盘上的文件可能已经被换掉、删掉或写坏。")
    left = opened_since(before)
    expect(not left, f"又保存了两次之后，这个进程多开着 {left} 的文件描述符，每保存一次就多一个：临时文件用 with 或 "
                     f"os.fdopen 打开，os.open 得到的描述符（文件夹的、锁文件的也一样）要在 finally 里 os.close，"
                     f"日志的 handler 只在开头加一次。{LEAK_COST}")

    whole = json.dumps(state, ensure_ascii=False)
    cases = (("empty.json", b"", "是空的（0 字节）"),
             ("broken.json", whole[:200].encode(), "只剩半截、不是合法的 JSON"),
             ("trailing.json", (whole + whole[-60:]).encode(),
              "是一个完整的检查点后面又拼着半份旧内容（不截断就覆盖写留下的），不是合法的 JSON"),
             ("binary.json", whole.encode("gbk", errors="replace"), "不是 UTF-8 文本（这里是 GBK 编码）"),
             ("list.json", json.dumps([state]).encode(), "是 JSON 但不是一个对象（这里是一个列表）"),
             ("empty-object.json", b"{}", "是一个空的 JSON 对象 {}（它不是「没有检查点」：没有 version）"),
             ("no-version.json", json.dumps({k: v for k, v in state.items() if k != "version"}).encode(),
              "里没有 version 字段"),
             ("old.json", json.dumps({**state, "version": 0}).encode(), "的 version 是 0（比代码认的旧）"),
             ("text-version.json", json.dumps({**state, "version": str(checkpoint_version)}).encode(),
              f"的 version 是字符串 \"{checkpoint_version}\"（不是数字 {checkpoint_version}）"))
    for name, data, what in cases:
        (folder / name).write_bytes(data)
        _load_error(load_checkpoint, folder / name, what)

    (folder / "folder.json").mkdir()
    try:
        value = load_checkpoint(folder / "folder.json")
    except NotImplementedError:
        fail("load_checkpoint 还没有写完（仍然是 raise NotImplementedError）。")
    except Exception:
        pass
    else:
        fail(f"path 上是一个文件夹、读不了时，load_checkpoint 返回了 {short(value)}：只有文件不存在才表示新任务，"
             "别的读不了（文件夹、没有权限……）要把错误报出来，不能当成没有检查点、悄悄从头开始。")

    _check_unreadable(load_checkpoint, folder / "locked.json", state)

    future = 7
    (folder / "future.json").write_text(json.dumps({**state, "version": future}), encoding="utf-8")
    err = _load_error(load_checkpoint, folder / "future.json", f"的 version 是 {future}")
    words = _without(str(err), folder)
    expect(_mentions(words, future) and _mentions(words, checkpoint_version),
           f"版本不符的报错要同时写出文件里的版本（{future}）和代码认的版本（{checkpoint_version}），"
           f"你的是：{short(str(err))}")

    with working_in(_scratch("check-bare-")):  # the default path is a bare file name: os.path.dirname of it is ""
        call('save_checkpoint(state, "checkpoint.json")（只有文件名，和默认的 CHECKPOINT_PATH 一样）', save_checkpoint,
             copy.deepcopy(state), "checkpoint.json")
        again = call('load_checkpoint("checkpoint.json")', load_checkpoint, "checkpoint.json")
    expect(again == state, "存到只有文件名的 path（当前文件夹里）再读回来，内容和原来不一样。")
    _check_two_tasks_in_one_folder(save_checkpoint, state)
    if os.name != "nt":  # (Windows: no folder is fsynced)
        # the same process saves again, into another folder: each save makes its own path's folder durable
        elsewhere = _scratch("check-save-again-") / "checkpoint.json"
        second = _DiskEvents()
        with second.watching(save_checkpoint):
            call_in_place("save_checkpoint", save_checkpoint, copy.deepcopy(state), elsewhere)
        moved = second.index(("rename", "checkpoint.json"))
        expect(moved is not None and _identity(elsewhere.parent.stat()) in
               {identity for i, identity in second.folders if i > moved},
               "再存到另一个文件夹里的 path 时，改名之后 fsync 的不是这一次 path 所在的文件夹：每次保存都要 fsync 这一次的 "
               "os.path.dirname(path)，不能沿用第一次保存时打开的那个文件夹。")
    print(PASSED)


def _check_two_tasks_in_one_folder(save_checkpoint, state: dict) -> None:
    """Two tasks' checkpoints in one folder: their saves rename no temporary file of the same name (a name fixed for
    the folder: two processes saving at once would each rename the other's state into place)."""
    folder = _scratch("check-pair-")
    moved = []
    for name in ("task-a.json", "task-b.json"):
        disk = _DiskEvents()
        with disk.watching(save_checkpoint):
            call(f"save_checkpoint（同一个文件夹里另一个任务的检查点 {name}）", save_checkpoint, copy.deepcopy(state),
                 folder / name)
        renames = [event for event in disk.events if event[0] == "rename"]
        moved.append({source for event, source in zip(renames, disk.moved) if event == ("rename", name)})
    # a name with the pid in it differs between two processes (both saves here are this kernel's)
    shared = sorted(name for name in moved[0] & moved[1] if str(os.getpid()) not in name)
    expect(not shared, "同一个文件夹里两个任务的检查点（task-a.json、task-b.json），两次保存都把同一个临时文件 "
                       f"{shared[0] if shared else ''} 改名成检查点：两个进程同时保存时，一个会把另一个写的内容改名成"
                       "自己的检查点。临时文件的名字要每次不同（tempfile.mkstemp(dir=path 所在的文件夹)），至少要随 path 不同。")


@contextlib.contextmanager
def working_in(folder: Path):
    """The current folder is `folder` inside the block (contextlib.chdir is Python 3.11 and newer)."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(here)


def _check_unreadable(load_checkpoint, path: Path, state: dict) -> None:
    """A checkpoint nobody may read (mode 000): its OSError goes to the caller, and the file stays."""
    path.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    os.chmod(path, 0)
    try:
        unprivileged(path.read_bytes)
    except PermissionError:
        pass
    else:  # mode bits that do not bind here (Windows): nothing to see
        os.chmod(path, 0o600)
        return
    try:
        value = unprivileged(load_checkpoint, path)
    except NotImplementedError:
        fail("load_checkpoint 还没有写完（仍然是 raise NotImplementedError）。")
    except (FileNotFoundError, ValueError) as err:
        fail(f"文件存在、但没有读权限时，load_checkpoint 抛出了 {type(err).__name__}：读不了的文件既不是「不存在」，"
             "也不是「内容坏了」，要让 PermissionError（OSError 的一种）原样抛出去，调用方才知道该去查权限。")
    except OSError:
        pass
    except Exception as err:  # noqa: BLE001 - named for the student
        fail(f"文件没有读权限时，load_checkpoint 应该让 PermissionError 抛出去，你的代码抛出了 {type(err).__name__}"
             f"（{short(str(err))}）。{explain(err)}")
    else:
        fail(f"文件存在、但没有读权限时，load_checkpoint 返回了 {short(value)}：只有文件不存在才表示新任务，"
             "读不了要把错误报出来，不能当成没有检查点、悄悄从头开始。")
    finally:
        if path.exists():
            os.chmod(path, 0o600)  # the scratch folder can go
    expect(path.exists(), "load_checkpoint 读一个没有读权限的检查点时把它删掉或移走了：读检查点不应该动它。")


# --- run_agent -------------------------------------------------------------------------------

class _Recorder:
    """Everything run_agent does that a check looks at, in order: model calls, saves, reconcile calls."""

    def __init__(self, namespace: dict, shapes=(), failing_from=None, in_place=False):
        self.namespace = namespace
        self.in_place = in_place  # the stand-in reconcile edits the checkpoint it is given, as the lesson's does
        # ("model", request messages, usage total, the reply as JSON) / ("save", state, path) / ("reconcile", state,
        # the messages it returned) / ("tool", name, input)
        self.log = []
        self.unlike_params = set()  # what a request sent other than request_params() gives
        self.failing_from = failing_from
        self.shapes = shapes
        # recorded where the SDK hands over its request: create(), stream(), with_raw_response and the client's
        # copies (with_options) all come through here
        self.client = offline_client(self._answer)

    def _answer(self, body: dict) -> tuple:
        """The offline model's answer, its reply number i in shapes[i] (course.model.shaped), or the API overloaded
        (529) from model call `failing_from` on."""
        self.unlike_params.update(key for key, value in request_params().items() if body.get(key) != value)
        answered = len(self.of("model"))
        if self.failing_from is not None and answered + 1 >= self.failing_from:
            return 529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, new_id("req_")
        status, reply, request_id = answer(body, self.shapes[answered] if answered < len(self.shapes) else None)
        if status == 200:
            usage = reply["usage"]
            self.log.append(("model", body.get("messages"), usage["input_tokens"] + usage["output_tokens"], reply))
        return status, reply, request_id

    def of(self, kind: str) -> list:
        return [entry for entry in self.log if entry[0] == kind]

    @contextlib.contextmanager
    def saves_logged(self):
        """The notebook's save_checkpoint, each call logged ("save", the state as given, path)."""
        real_save = self.namespace.get("save_checkpoint")

        def save_checkpoint(state, *args, **kwargs):
            self.log.append(("save", copy.deepcopy(state), args[0] if args else kwargs.get("path")))
            return real_save(state, *args, **kwargs)

        with standing_in(self.namespace, "save_checkpoint", save_checkpoint):
            yield

    @contextlib.contextmanager
    def watching(self):
        def reconcile(cp):
            # A placeholder that only closes the gap (no rule, no rerun): enough for run_agent to go on. It returns
            # a new checkpoint and leaves its argument alone, or closes the gap in its argument and returns that, as
            # a reconcile may either: run_agent goes on with the result.
            entry = ["reconcile", copy.deepcopy(cp), None]
            self.log.append(entry)
            expect(isinstance(cp, dict) and cp.get("pendingToolUse") is not None,
                   "run_agent 在没有悬空调用时也调用了 reconcile：只有 pendingToolUse 不是 None 时才需要对账。")
            result = {"type": "tool_result", "tool_use_id": cp["pendingToolUse"]["id"],
                      "content": "（检查程序临时补上的结果）"}
            if cp["pendingToolUse"].get("name") == "send_email":  # as the lesson's reconcile answers it
                result.update(content="（检查程序临时补上的结果：send_email 的结果未知，请先确认现状）", is_error=True)
            closed = cp if self.in_place else copy.deepcopy(cp)
            closed["messages"].append({"role": "user", "content": [result]})
            closed["pendingToolUse"] = None
            entry[2] = copy.deepcopy(closed["messages"])
            return closed

        with self.saves_logged(), self.tools_logged(), standing_in(self.namespace, "reconcile", reconcile):
            yield self

    @contextlib.contextmanager
    def tools_logged(self):
        """The notebook's execute_tool, each call logged ("tool", name, input)."""
        real_tool = self.namespace.get("execute_tool", course_execute_tool)

        def execute_tool(*args, **kwargs):
            self.log.append(("tool", args[0] if args else kwargs.get("name"),
                             copy.deepcopy(args[1] if len(args) > 1 else kwargs.get("input"))))
            return real_tool(*args, **kwargs)

        with standing_in(self.namespace, "execute_tool", execute_tool):
            yield


def _save_point(state) -> str:
    """Which save point a saved state is: A after the model's reply, B after a tool's result."""
    messages = state.get("messages") if isinstance(state, dict) else None
    if not messages:
        return "?"
    last = messages[-1]
    if last.get("role") == "assistant":
        return "A"
    if isinstance(last.get("content"), list) and any(b.get("type") == "tool_result" for b in last["content"]):
        return "B"
    return "?"


GIVEN, OMITTED = "given", "omitted"  # how _run passes the client: the watched one, none at all, or None


def _run(run_agent, namespace, task, path, client=GIVEN, shapes=(), failing_from=None, in_place=False):
    """run_agent(task, client=..., path=path), watched; `client`: GIVEN (the watched client), OMITTED (called as
    the docstring shows it) or None (client=None, as the signature allows), when the notebook's make_client hands
    out the watched one; `shapes`: how the model's replies come (course.model.shaped); `failing_from`: the model
    call from which on the API is overloaded; `in_place`: the stand-in reconcile edits its argument."""
    recorder = _Recorder(namespace, shapes, failing_from, in_place)
    start = call("load_checkpoint", namespace["load_checkpoint"], path) if Path(path).exists() else None
    dangling = isinstance(start, dict) and start.get("pendingToolUse") is not None
    how = {GIVEN: "", OMITTED: "，照文档不传 client", None: "，client=None"}[client]
    what = f"run_agent（{'从 ' + Path(path).name + ' 续跑' if start else '新任务'}{how}）"
    arguments = {"path": path, **({"client": recorder.client} if client == GIVEN else {}),
                 **({"client": None} if client is None else {})}
    make_client_ = namespace.get("make_client", make_client) if client == GIVEN else (
        lambda *args, **kwargs: recorder.client)
    with recorder.watching(), standing_in(namespace, "make_client", make_client_):
        try:
            state = call(what, run_agent, task, **arguments)
        except CheckFailed as failure:
            error = failure.__cause__
            if (isinstance(error, anthropic.BadRequestError) and dangling and not recorder.of("reconcile")
                    and "without `tool_result`" in str(error)):
                raise CheckFailed("检查点里有悬空调用（pendingToolUse 不是 None），你的 run_agent 续跑时没有调用 reconcile "
                                  "就去调用模型，API 返回了 400：没有配对结果的 tool_use 发不出去。") from error
            raise
    expect(isinstance(state, dict), f"run_agent 应该返回最终状态（一个 dict），你的函数返回了 {short(state)}")
    return state, recorder


LEAK_COST = "进程能同时打开的文件数是有限的，长时间运行的智能体会因此用光它。"


def open_paths() -> list | None:
    """What this process's descriptors have open that is a file or a folder (not a pipe, a socket, a device); None
    where the system does not say (no /proc)."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
        if target.startswith("/") and not target.startswith(("/dev/", "/proc/")):
            found.append(target.removesuffix(" (deleted)"))
    return sorted(found)


def opened_since(before: list | None) -> list:
    """The files and folders this process has open more often now than in `before` (open_paths())."""
    now = open_paths()
    return [] if before is None or now is None else sorted(t for t in set(now) if now.count(t) > before.count(t))


def _prepare(namespace: dict, state: dict, path: Path) -> None:
    """Write a checkpoint for a check with the notebook's save_checkpoint; its failure said in Chinese."""
    call("检查程序准备检查点时调用的 save_checkpoint", namespace["save_checkpoint"], state, path)


MODEL_DUMP_ADVICE = "把响应变成消息用 assistant_message(response)（或 model_dump(exclude_none=True)）"


def _expect_no_nulls(messages) -> None:
    """No content block carries a null field, as the SDK's model_dump() leaves them (caller: null)."""
    nulls = sorted({key for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
                    for block in m["content"] if isinstance(block, dict) for key, value in block.items() if value is None})
    expect(not nulls, f"messages 里的内容块带着值为 None 的字段 {nulls}：这是 SDK 对象的 model_dump() 带出来的，"
                      f"发给模型时会多出这些 null。{MODEL_DUMP_ADVICE}。")


def _needs(namespace: dict, *names: str) -> None:
    missing = [name for name in names if name not in namespace]
    expect(not missing, f"还没有定义 {'、'.join(missing)}：请从上往下依次运行前面的单元格（包括你写的答题单元格）。")


def _results_of(messages: list, tool_use_id: str) -> list:
    return [b for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list) for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id]


def _with_missing_note(cp: dict, note: str) -> dict:
    """cp with one more note in its list_dir result: a note the workspace does not have, so reading it fails."""
    for message in cp["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and "meeting-08-25.md" in text_of(block.get("content")):
                block["content"] = text_of(block["content"]) + "\n" + note
    return cp


@leaves_no_scratch
def check_run_agent(run_agent, namespace: dict) -> None:
    """`namespace` is the notebook's globals(): the check stands in for save_checkpoint and reconcile there."""
    __tracebackhide__ = True
    _needs(namespace, "save_checkpoint", "load_checkpoint")
    folder = _scratch("check-run-")
    load = namespace["load_checkpoint"]
    max_turns = namespace.get("MAX_TURNS", 40)

    cp = load_sample("cpA")
    _prepare(namespace, cp, folder / "a.json")
    final, seen = _run(run_agent, namespace, "续跑时用不到这个参数", folder / "a.json")
    models = seen.of("model")
    expect(models, "从 cpA 续跑时 run_agent 一次模型也没有调用：任务还没做完，应该接着调用模型。")
    first = models[0][1]
    expect(first != [{"role": "user", "content": "续跑时用不到这个参数"}] and first != [cp["messages"][0]],
           "续跑时重新初始化了 messages：读到检查点就要跳过初始化，直接用检查点里的对话。")
    expect(first == cp["messages"], "续跑后第一次调用模型时发出的 messages，应该就是检查点里原样存下的那一份。")
    expect(final.get("task") == cp["task"], "续跑时任务以检查点里记的为准，不是参数 task。")
    failed = with_failed_result(cp, "错误：文件不存在：notes/meeting-08-25.md")
    _prepare(namespace, failed, folder / "failed.json")
    _, seen_failed = _run(run_agent, namespace, "续跑时用不到这个参数", folder / "failed.json")
    first_model = next((i for i, entry in enumerate(seen_failed.log) if entry[0] == "model"), len(seen_failed.log))
    expect(seen_failed.of("model") and seen_failed.of("model")[0][1] == failed["messages"]
           and not any(entry[0] == "tool" for entry in seen_failed.log[:first_model]),
           "从最后一个工具结果是失败（is_error: true）的检查点续跑：失败也是已知的结果，第一次调用模型时发出的 messages "
           "要原样是检查点里那一份，之前不要替模型重试这个工具、也不要改写这个结果，由模型读了再决定。")
    expect(final.get("turns") == cp["turns"] + len(models),
           f"turns 要从检查点里的 {cp['turns']} 接着数，每调用一次模型加 1：这次调用了 {len(models)} 次模型，"
           f"turns 应该是 {cp['turns'] + len(models)}，你的是 {short(final.get('turns'))}。")
    latest, total = models[-1][2], sum(m[2] for m in models)
    if final.get("tokensUsed") != latest:
        summed = final.get("tokensUsed") in (total, total + cp["tokensUsed"])
        fail("tokensUsed 记的是最近一次响应的 input_tokens + output_tokens（当前上下文窗口有多大），"
             + ("不是历次响应的累加：每次调用模型之后用新的值覆盖它。" if summed else
                f"这里应该是 {latest}，你的是 {short(final.get('tokensUsed'))}。"))
    expect(final.get("pendingToolUse") is None, "任务结束时不应该还有悬空的工具调用（pendingToolUse 应该是 None）。")
    extra = extra_fields_said(final, "run_agent 返回的状态")
    expect(extra is None, f"{extra}。")
    _expect_no_nulls(final.get("messages", []))
    expect(not seen.unlike_params, f"调用模型时要带上 **request_params()，你的请求里 {'、'.join(sorted(seen.unlike_params))} "
                                   "和它给的不一样：课程的 system 提示、工具清单和「一次最多一个工具调用」都在里面。")

    saves = seen.of("save")
    elsewhere = sorted({str(entry[2]) if entry[2] is not None else "（没有传 path，即默认的 CHECKPOINT_PATH）"
                        for entry in saves if entry[2] is None or Path(entry[2]) != folder / "a.json"})
    expect(not elsewhere, f"run_agent 收到的 path 是 {folder / 'a.json'}，save_checkpoint 却存到了 {'、'.join(elsewhere)}："
                          "存取都要用传进来的 path，否则换一个文件就恢复不了。")
    points = [_save_point(entry[1]) for entry in saves]
    results = sum(1 for m in final.get("messages", [])[len(cp["messages"]):]
                  if m.get("role") == "user" and _save_point({"messages": [m]}) == "B")
    expect(points.count("A") >= len(models),
           f"没有在存档点 A 存档：调用了 {len(models)} 次模型，但只在 {points.count('A')} 次「响应追加进 messages 之后」"
           "调用了 save_checkpoint。")
    expect(points.count("B") >= results,
           f"没有在存档点 B 存档：追加了 {results} 个 tool_result，但只在 {points.count('B')} 次「结果追加进 messages、"
           "pendingToolUse 清回 None 之后」调用了 save_checkpoint。")
    calls, latest = 0, cp["tokensUsed"]
    for entry in seen.log:  # at save point A, turns already counts the call whose reply it saves, tokensUsed its usage
        if entry[0] == "model":
            calls, latest = calls + 1, entry[2]
        if entry[0] != "save" or _save_point(entry[1]) != "A":
            continue
        if entry[1].get("turns") != cp["turns"] + calls:
            fail(f"存档点 A 存下的 turns 是 {short(entry[1].get('turns'))}，应该是 {cp['turns'] + calls}（检查点里的 "
                 f"{cp['turns']} 加上续跑后调用模型的 {calls} 次）：调用模型之前就给 turns 加 1。在 A 之后才加的话，"
                 "崩溃在 A 之后再重启，这一次调用就没算进 MAX_TURNS。")
        expect(entry[1].get("tokensUsed") == latest,
               f"存档点 A 存下的 tokensUsed 是 {short(entry[1].get('tokensUsed'))}，应该是这次响应的 input_tokens + "
               f"output_tokens（{latest}）：调用模型之后、存档点 A 之前就更新它（第 3 节循环的第 3 步）。在 A 之后才更新的话，"
               "崩溃在 A 之后再重启，检查点里记的还是上一次响应的用量。")
    for entry in saves:
        state = entry[1]
        if _save_point(state) == "A":
            asked = [b for b in state["messages"][-1]["content"] if b.get("type") == "tool_use"]
            wanted = {"id": asked[0]["id"], "name": asked[0]["name"], "input": asked[0]["input"]} if asked else None
            expect(state.get("pendingToolUse") == wanted,
                   "存档点 A 存下的 pendingToolUse 要记着这次响应要求的工具调用 {id, name, input}"
                   "（没有工具调用时是 None）：崩溃在 A 与 B 之间时，恢复全靠它。")
        elif _save_point(state) == "B":
            expect(state.get("pendingToolUse") is None, "存档点 B 存档时，pendingToolUse 应该已经清回 None。")
    saved = None
    for entry in seen.log:  # save point A comes before the tool runs: a crash while it runs finds the call recorded
        saved = entry[1] if entry[0] == "save" else saved
        pending = saved.get("pendingToolUse") if isinstance(saved, dict) else None
        expect(entry[0] != "tool" or isinstance(pending, dict) and [pending.get("name"), pending.get("input")]
               == list(entry[1:]),
               f"执行工具 {entry[1]} 时，最近一次存档还没有记下这次调用（pendingToolUse）：存档点 A 要在执行工具之前。"
               "工具执行到一半崩溃的话，重启后检查点不记得模型要过这次调用，模型再决定一次，发信的任务就会发出第二封。")
    expect((folder / "a.json").exists(), f"run_agent 结束时把 path 上的检查点删掉（或挪走）了。{KEEP_CHECKPOINT_ADVICE}。")
    expect(load(folder / "a.json") == final, "结束时磁盘上的检查点应该和返回的状态一致：最后一个存档点也要存。")

    again, seen = _run(run_agent, namespace, cp["task"], folder / "a.json")
    expect(not seen.of("model"),
           f"对一个已经做完的任务（检查点的最后一条消息是模型的收尾回复）再运行 run_agent，它又调用了 {len(seen.of('model'))} "
           "次模型：任务已经结束，应该原样返回检查点。真实的 API 会把结尾的 assistant 消息当成它要接着写的开头。")
    expect(again == final, "对一个已经做完的任务再运行 run_agent，返回的状态应该就是检查点里的那一份，不做任何改动。")
    expect(call("load_checkpoint", load, folder / "a.json") == final,
           f"对一个已经做完的任务再运行 run_agent 之后，path 上的检查点要原样留着。{KEEP_CHECKPOINT_ADVICE}。")
    closing = final["messages"][-1]["content"]
    for name, content in (("empty", []), ("texts", closing + closing)):  # an empty end_turn; several text blocks
        ended = {**final, "messages": final["messages"][:-1] + [{"role": "assistant", "content": content}]}
        _prepare(namespace, ended, folder / f"closing-{name}.json")
        again, seen = _run(run_agent, namespace, cp["task"], folder / f"closing-{name}.json")
        expect(not seen.of("model") and again == ended,
               f"模型的收尾回复{'内容为空（content 是 []，停止原因 end_turn）' if not content else '有好几个文字块'}时，"
               "任务也做完了：再运行 run_agent 要原样返回检查点、不调用模型。判断「做完了」看最后一条消息是不是 assistant 的，"
               "不看它的内容块。")

    fresh, seen = _run(run_agent, namespace, cp["task"], folder / "new.json")
    as_text, as_block = {"role": "user", "content": cp["task"]}, {"role": "user", "content": [
        {"type": "text", "text": cp["task"]}]}  # the API reads both the same way
    expect(seen.of("model") and seen.of("model")[0][1] in ([as_text], [as_block]),
           "没有检查点时，第一次调用模型只应带一条消息 {'role': 'user', 'content': task}，"
           f"你的是 {short(seen.of('model')[0][1] if seen.of('model') else '（没有调用模型）')}。")
    expect(fresh.get("turns") == len(seen.of("model")), "从头开始时 turns 从 0 数起，每调用一次模型加 1。")
    for name, wanted in (("version", namespace.get("CHECKPOINT_VERSION", 1)), ("task", cp["task"])):
        expect(fresh.get(name) == wanted, f"新任务的状态里 {name} 应该是 {short(wanted)}，你的是 {short(fresh.get(name))}。")
    (folder / "new.json").unlink()  # moved away, as the lesson says to start another task: the disk decides
    _, seen = _run(run_agent, namespace, cp["task"], folder / "new.json")
    expect(seen.of("model") and seen.of("model")[0][1] in ([as_text], [as_block]),
           "把 path 上的检查点挪走之后再运行 run_agent，应该从头开始（第一次调用模型只带任务这一条消息）：每次开头都用 "
           "load_checkpoint(path) 读磁盘上此刻的检查点，不用内存里记着的上一次的状态。")
    begun = {**cp, "turns": 0, "tokensUsed": 0, "messages": [as_text], "pendingToolUse": None}
    _prepare(namespace, begun, folder / "begun.json")  # saved before the model's first reply
    _, seen = _run(run_agent, namespace, cp["task"], folder / "begun.json")
    expect(seen.of("model"), "检查点里的对话只有任务这一条 user 消息（模型还没有回复），任务没有做完，续跑要调用模型："
                             "只有最后一条是 assistant 消息时才原样返回。")

    try:
        _run(run_agent, namespace, cp["task"], folder / "overloaded.json", failing_from=2)
    except CheckFailed as failure:
        if failure.__cause__ is None:  # a check failed, not the error run_agent let through
            raise
    else:
        fail("第 2 次调用模型时 API 报错（529 overloaded，客户端抛出 APIStatusError），你的 run_agent 却正常返回了："
             "调用方（守护进程、下一个单元格）就当任务已经做完，不会再续跑，任务停在半路。调用模型出错时可以重试，"
             "重试不成要把异常抛给调用方。")
    left = call("load_checkpoint", load, folder / "overloaded.json")
    expect(isinstance(left, dict) and left.get("turns") == 1 and left.get("pendingToolUse") is None,
           "第 2 次调用模型时 API 报错之后，磁盘上应该还是上一个存档点 B：模型只成功回复过 1 次，turns 是 1、"
           f"pendingToolUse 是 None；你的检查点是 turns={short(left.get('turns') if isinstance(left, dict) else left)}。"
           "调用出错时不要再存档（比如在 finally 里存）：没有回复的那次调用不算数，重启后从存档点 B 接着做。")
    _check_reply_shapes(run_agent, namespace, cp["task"], folder / "shapes.json")
    _check_tool_outputs(run_agent, namespace, cp["task"], folder / "outputs.json")

    note = "meeting-08-31.md"  # not in the workspace: reading it fails, an ordinary failure
    missing = _with_missing_note(load_sample("cpA"), note)
    _prepare(namespace, missing, folder / "missing-note.json")
    ended, seen = _run(run_agent, namespace, missing["task"], folder / "missing-note.json", client=OMITTED)
    saved, models = None, 0
    for entry in seen.log:  # save point B before every later call of the model, after a failed tool too
        saved = entry[1] if entry[0] == "save" else saved
        models += entry[0] == "model"
        expect(entry[0] != "model" or models == 1 or (saved is not None and saved.get("messages") == entry[1]
                                                        and saved.get("pendingToolUse") is None),
               "再次调用模型时，上一个工具的结果还没有存档：存档点 B 要在 tool_result 追加进 messages、pendingToolUse "
               "清回 None 之后，工具失败了也一样。")
    asked = [b for m in ended.get("messages", []) if m.get("role") == "assistant" for b in m["content"]
             if b.get("type") == "tool_use" and b.get("input") == {"path": f"./notes/{note}"}]
    expect(asked, f"检查程序在 list_dir 的结果里加了一份不存在的 {note}，模型却没有去读它：这一步的检查没法进行。")
    times = seen.of("tool").count(("tool", "read_file", asked[0]["input"]))
    expect(times == 1, f"读 {note} 失败了，你的 run_agent 把它执行了 {times} 次：出错也是确定的结果，原样交给模型（is_error: True"
                       "、content 是错误文本），要不要重试、换什么办法由模型读了错误再决定；自己重试，有副作用的工具就做了两遍。")
    failure = course_execute_tool("read_file", asked[0]["input"])
    results = _results_of(ended["messages"], asked[0]["id"])
    expect(results and carries_output(results[0].get("content"), failure),
           f"读 {note} 失败了，它的 tool_result 的 content 应该是 execute_tool 返回的那段错误文本「{short(failure, 40)}」。")
    expect(results[0].get("is_error") is True,
           f"读 {note} 失败了（execute_tool 返回的文本以「错误」开头），这个 tool_result 要带 is_error: True（布尔值），"
           f"告诉模型工具失败了、原因是什么；你的 is_error 是 {short(results[0].get('is_error', '（没有）'))}。")

    spent = {**load_sample("cpA"), "turns": max_turns}
    _prepare(namespace, spent, folder / "spent.json")
    _, seen = _run(run_agent, namespace, spent["task"], folder / "spent.json")
    expect(not seen.of("model"), f"检查点里的 turns 已经等于 MAX_TURNS（{max_turns}），恢复后不应该再调用模型："
                                 "上限是跨重启累计的，否则一个反复崩溃的任务永远停不下来。")

    last = {**load_sample("cpA"), "turns": max_turns - 1}  # one turn left: its tool call runs all the same
    _prepare(namespace, last, folder / "last-turn.json")
    ended, seen = _run(run_agent, namespace, last["task"], folder / "last-turn.json")
    expect(len(seen.of("model")) == 1,
           f"检查点里的 turns 是 {max_turns - 1}，离 MAX_TURNS（{max_turns}）还差一轮：恢复后应该再调用一次模型（第 "
           f"{max_turns} 轮）再停下，你的 run_agent 调用了 {len(seen.of('model'))} 次。")
    asked = [b for b in seen.of("model")[-1][3]["content"] if b["type"] == "tool_use"]
    expect(not asked or (ended.get("pendingToolUse") is None and _save_point(ended) == "B"
                         and _save_point(call("load_checkpoint", load, folder / "last-turn.json")) == "B"),
           f"最后一轮（第 {max_turns} 轮）模型要求的工具也要执行，结果追加进 messages、存档（存档点 B）之后再停下："
           "停在悬空调用上，返回的对话不完整，下次恢复还得对账。")

    check_stops_when_it_cannot_go_on(run_agent, namespace, last["task"], folder)
    _check_interrupted_send(run_agent, namespace, folder / "interrupted.json")
    check_interrupted_model(run_agent, namespace, folder / "interrupted-model.json")

    for sample in ("cpB", "cpC"):  # a read-only call dangling, then send_email; the second with client=None and
        dangling = load_sample(sample)  # a reconcile that edits the checkpoint it is given
        _prepare(namespace, dangling, folder / f"{sample}.json")
        _, seen = _run(run_agent, namespace, dangling["task"], folder / f"{sample}.json",
                       client=GIVEN if sample == "cpB" else None, in_place=sample == "cpC")
        tool = dangling["pendingToolUse"]["name"]
        order = [entry[0] for entry in seen.log if entry[0] in ("model", "reconcile")]
        expect("reconcile" in order, f"{sample} 里有悬空调用（{tool}），你的 run_agent 续跑时没有调用 reconcile。")
        expect(order.index("reconcile") == 0 and order.count("reconcile") == 1,
               "续跑时要先对账（恰好一次），再调用模型：pendingToolUse 不是 None 的检查点直接发给模型，API 会返回 400。")
        expect(seen.of("reconcile")[0][1].get("pendingToolUse") == dangling["pendingToolUse"],
               "交给 reconcile 的应该是从检查点读出来的状态，它的 pendingToolUse 还记着悬空调用。")
        after = [entry for entry in seen.log[[entry[0] for entry in seen.log].index("reconcile") + 1:]
                 if entry[0] in ("save", "model")]
        expect(after and after[0][0] == "save" and after[0][1].get("pendingToolUse") is None,
               f"续跑时对账之后、调用模型之前要先存档（save_checkpoint），悬空的是 {tool} 也一样：不存的话，这之后再崩溃，"
               "下次恢复又是那个悬空调用，只读工具再跑一遍，高影响工具再标一次 is_error。")
        changed = next((name for name in ("turns", "tokensUsed") if after[0][1].get(name) != dangling[name]), None)
        expect(changed is None, f"{sample} 对账之后存下的检查点里 {changed} 变了（原来是 {dangling.get(changed)}，"
                                f"存下的是 {after[0][1].get(changed)}）：对账只补上一条 tool_result，不是一次模型调用，"
                                "不管补的是执行结果还是 is_error，turns、tokensUsed 都原样沿用。")
        models = seen.of("model")
        expect(not models or models[0][1] == seen.of("reconcile")[0][2],
               f"{sample} 对账之后第一次调用模型发出的 messages，应该就是 reconcile 返回的那一份（最后一条是补上的 "
               "tool_result），不增不改：对账后的检查点和刚到存档点 B 的一样，直接交给循环。")
    beyond = {**load_sample("cpB"), "turns": max_turns + 2}  # a limit lowered since the save
    _prepare(namespace, beyond, folder / "spent-dangling.json")
    ended, seen = _run(run_agent, namespace, beyond["task"], folder / "spent-dangling.json")
    expect(not seen.of("model"), f"检查点里的 turns 是 {max_turns + 2}，已经超过 MAX_TURNS（{max_turns}；比如存档之后调低了"
                                 f"上限），恢复后不应该再调用模型，你的 run_agent 调用了 {len(seen.of('model'))} 次："
                                 "判断用 turns < MAX_TURNS，不要用 !=。")
    expect(seen.of("reconcile") and ended.get("pendingToolUse") is None,
           f"检查点里的 turns 已经用满（{max_turns + 2}，MAX_TURNS 是 {max_turns}），可还挂着一个悬空调用：先对账、存档再结束"
           "（不再调用模型），否则返回的对话里 tool_use 缺了 tool_result。")
    print(PASSED, f"从 cpA 续跑到 turns = {final['turns']}")
    print("（这个检查替你提供了一个 reconcile，所以现在还不需要你的。）")


def check_stops_when_it_cannot_go_on(run_agent, namespace: dict, task: str, folder: Path) -> None:
    """run_agent lets the error through, with no model call or tool run, when it cannot go on: a checkpoint that
    load_checkpoint raises ValueError for (cut off half-way, written by a newer version), and a full disk (every
    save raises OSError)."""
    __tracebackhide__ = True
    newer = {**load_sample("cpB"), "version": namespace.get("CHECKPOINT_VERSION", 1) + 1}
    for name, text, said in (("broken.json", json.dumps(load_sample("cpB"), ensure_ascii=False)[:200], "只存了一半"),
                             ("newer.json", json.dumps(newer, ensure_ascii=False), "是更新版本的程序写的")):
        broken = folder / name
        broken.write_text(text, encoding="utf-8")
        recorder = _Recorder(namespace)
        with recorder.watching():
            raised = _raised(run_agent, task, recorder, broken)
        if raised is None:
            why = ("；你的 run_agent 没有抛出错误，而是当成没有检查点从头再来，或者自己读了文件、跳过了版本检查："
                   "之前的轮次白做了，已经发出去的邮件还可能再发一遍")
        else:
            why = "" if isinstance(raised, ValueError) else f"；你的 run_agent 抛出的是 {type(raised).__name__}"
        expect(isinstance(raised, ValueError) and not recorder.of("model") and broken.read_text(encoding="utf-8") == text,
               f"path 上的检查点读不出来（{said}，load_checkpoint 抛出 ValueError）时，run_agent 要经过 load_checkpoint、"
               f"让这个错误抛出去、不调用模型，把坏文件留在原处等人来看{why}。（先确认 load_checkpoint 对坏文件抛 ValueError。）")

    def disk_full(state, path=None, *args, **kwargs):
        raise OSError(28, "No space left on device", str(path))

    recorder = _Recorder(namespace)
    with standing_in(namespace, "save_checkpoint", disk_full), recorder.watching():
        raised = _raised(run_agent, task, recorder, folder / "disk-full.json")
    ran = [entry[1] for entry in recorder.of("tool")]
    expect(isinstance(raised, OSError) and not ran,
           "磁盘满了、save_checkpoint 抛出 OSError 时，run_agent 要让它抛出去，不能不存档就接着执行工具：存不下存档点 A "
           "就去执行，这时崩溃，重启后谁也不知道这次调用做过没有。你的 run_agent "
           + (f"执行了 {short(ran)}" if ran else "没有抛出异常" if raised is None else f"抛出的是 {type(raised).__name__}")
           + "。（可以重试，重试不成就把异常抛给调用方。）")


def _check_interrupted_send(run_agent, namespace: dict, path: Path) -> None:
    """A KeyboardInterrupt (Jupyter's stop button) while send_email runs: it goes through run_agent, and the
    checkpoint on disk is still save point A, the send pending, no result made up for it."""
    __tracebackhide__ = True
    start = load_sample("cpC")  # one step before the model asks for the email: the send is the next call
    start["messages"], start["pendingToolUse"], start["turns"] = start["messages"][:-1], None, start["turns"] - 1
    _prepare(namespace, start, path)
    real_tool = namespace.get("execute_tool", course_execute_tool)

    def interrupted(name, *args, **kwargs):
        if name == "send_email":
            raise KeyboardInterrupt  # as SIGINT lands: nobody knows whether the email went out
        return real_tool(name, *args, **kwargs)

    recorder = _Recorder(namespace)
    with recorder.saves_logged(), standing_in(namespace, "execute_tool", interrupted):
        try:
            run_agent(start["task"], client=recorder.client, path=path)
            raised = None
        except BaseException as error:  # noqa: BLE001 (which one is what the check reads)
            raised = error
    saved = call("load_checkpoint", namespace["load_checkpoint"], path)
    pending = saved.get("pendingToolUse") if isinstance(saved, dict) else None
    said = ("没有让 KeyboardInterrupt 抛出去" if not isinstance(raised, KeyboardInterrupt)
            else "" if isinstance(pending, dict) and pending.get("name") == "send_email"
            else "存下的检查点里已经没有这个悬空调用（替它记了一个结果？）")
    expect(not said, "send_email 执行到一半被中断（KeyboardInterrupt：notebook 里按下「中断」），你的 run_agent "
                     f"{said}。执行被打断时谁也不知道信发出去没有：不要在 except 或 finally 里替它记一个「失败」「已中断」的"
                     "结果再存档，让中断抛出去，磁盘上留着存档点 A，续跑时由 reconcile 补 is_error（结果未知）。")


def check_interrupted_model(run_agent, namespace: dict, path: Path) -> None:
    """A KeyboardInterrupt while the model has not answered yet: the checkpoint on disk stays as the last save point
    left it (a save on the way out would keep a turn that was counted and never answered)."""
    __tracebackhide__ = True
    start = load_sample("cpA")
    _prepare(namespace, start, path)

    def interrupted(body: dict) -> tuple:
        raise KeyboardInterrupt  # as SIGINT lands while the request waits for its reply

    try:
        run_agent(start["task"], client=offline_client(interrupted), path=path)
    except BaseException:  # noqa: BLE001 (the interrupt, as the notebook would show it)
        pass
    saved = call("load_checkpoint", namespace["load_checkpoint"], path)
    expect(saved == start, "等模型回复时被中断（KeyboardInterrupt：notebook 里按下「中断」），检查点应该还是中断前最后一个存档点"
                           f"存下的那一份（turns={start['turns']}），你的 run_agent 留下的是 "
                           f"{short({k: saved.get(k) for k in ('turns', 'pendingToolUse')} if isinstance(saved, dict) else saved, 80)}"
                           "：中断时不要再存档（不要在 except KeyboardInterrupt 或 finally 里 save_checkpoint），这一轮的 turns "
                           "已经算上了、回复却没到，存下它，续跑时这一轮就被算了两次。")


def _raised(run_agent, task: str, recorder: "_Recorder", path: Path) -> Exception | None:
    """What run_agent(task, the recorder's client, path) raised, or None if it returned."""
    try:
        run_agent(task, client=recorder.client, path=path)
    except Exception as error:  # noqa: BLE001 (which one is what the check reads)
        return error
    return None


REPLY_SHAPES = ("tool_then_text", "tool_cut_off", "tool_end_turn", "tool_only", "cut_off")  # a few of them


def _check_reply_shapes(run_agent, namespace: dict, task: str, path: Path) -> None:
    """Replies the API also sends: a reply with a tool_use is a tool call whatever its stop reason and wherever
    the block is; one without is the end of the run, also when it was cut off at max_tokens."""
    final, seen = _run(run_agent, namespace, task, path, shapes=REPLY_SHAPES)
    models = seen.of("model")
    for number, (_, _, _, reply) in enumerate(models, 1):
        what = f"模型的第 {number} 次回复{describe_reply(reply)}"
        asked = [block["id"] for block in reply["content"] if block["type"] == "tool_use"]
        later = models[number][1] if number < len(models) else None
        if asked:
            expect(later is not None and _results_of(later, asked[0]),
                   f"{what}：回复里有工具调用（tool_use），run_agent 就要执行它、把结果交回给模型，不管停止原因是什么、"
                   "它排在第几个内容块；你的 run_agent 却没有接着这样做。找工具调用要看 content 里的每一块，不能只看 stop_reason。")
        else:
            expect(later is None, f"{what}：回复里没有工具调用，run_agent 就该停下、返回状态（不管停止原因是不是 end_turn）；"
                                  "你的 run_agent 却又调用了模型。")
    expect(final.get("pendingToolUse") is None, "任务结束时不应该还有悬空的工具调用（pendingToolUse 应该是 None）。")
    _expect_no_nulls(final.get("messages", []))


def _expect_whole_output(result, output: str, returned: str) -> None:
    """`result` (a tool_result, or None when there is none) carries a successful `output` whole and no is_error;
    `returned` says what the tool returned."""
    expect(result is not None and carries_output(result.get("content"), output),
           f"{returned}，tool_result 的 content 要原样放进这整段文本，不能截短、不能换掉。")
    expect(not result.get("is_error"),
           f"{returned}，这是工具成功给出的结果，tool_result 不应该标 is_error：只有以「错误」开头的文本才表示工具失败。")


def _check_tool_outputs(run_agent, namespace: dict, task: str, path: Path) -> None:
    """Tool outputs in every TOOL_OUTPUT_SHAPES, from the third call on (the model reads on from the first two):
    each goes into its tool_result whole, and none is flagged is_error."""
    shaped, calls = {}, []  # tool call as JSON -> (shape, the output run_agent got); the calls' names

    def execute_tool(name, input, *args, **kwargs):
        output = course_execute_tool(name, input, *args, **kwargs)
        if len(calls) >= 2 and len(shaped) < len(TOOL_OUTPUT_SHAPES) and name in COURSE_READ_ONLY:
            shape = list(TOOL_OUTPUT_SHAPES)[len(shaped)]
            output = TOOL_OUTPUT_SHAPES[shape](output)
            shaped[json.dumps([name, input], sort_keys=True, ensure_ascii=False)] = (shape, output)
        calls.append(name)
        return output

    with standing_in(namespace, "execute_tool", execute_tool):
        final, _ = _run(run_agent, namespace, task, path)
    expect(len(shaped) == len(TOOL_OUTPUT_SHAPES), "检查程序想让模型多调用几次工具，模型却提前结束了：这一步的检查没法进行。")
    for message in final.get("messages", []):
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") != "tool_use":
                continue
            found = shaped.get(json.dumps([block.get("name"), block.get("input")], sort_keys=True, ensure_ascii=False))
            if found is None:
                continue
            shape, output = found
            results = _results_of(final["messages"], block["id"])
            _expect_whole_output(results[0] if results else None, output, f"execute_tool 返回了{OUTPUT_SAID[shape]}")


# --- reconcile -------------------------------------------------------------------------------

def _with_pending(sample: str, name: str, tool_input: dict) -> dict:
    cp = load_sample(sample)
    block = next(b for b in cp["messages"][-1]["content"] if b["type"] == "tool_use")
    block.update(name=name, input=dict(tool_input))
    cp["pendingToolUse"] = {"id": block["id"], "name": name, "input": dict(tool_input)}
    return cp


def with_failed_result(cp: dict, output: str) -> dict:
    """A copy of `cp` (saved at point B) whose last tool result is a failure: `output`, is_error. A known result, for
    the model to read as it is: nothing to recover, nothing to run again."""
    failed = copy.deepcopy(cp)
    failed["messages"][-1]["content"][0].update(content=output, is_error=True)
    return failed


def _answered_before(cp: dict, earlier: dict, output) -> dict:
    """`cp` whose conversation already holds `earlier` ({id, name, input}: the dangling call's name and input under
    another id), asked for and answered with `output` in the turn before: that result is its, not the dangling one's."""
    cp["messages"][-1:-1] = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": earlier["id"], "name": earlier["name"],
                                           "input": copy.deepcopy(earlier["input"])}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": earlier["id"], "content": output}]}]
    return cp


def _words_after_call(cp: dict, text: str) -> dict:
    """`cp` whose model wrote on after its dangling call: a text block after the tool_use, as the API allows."""
    cp["messages"][-1]["content"].append({"type": "text", "text": text})
    return cp


def _sent_before(sample: str) -> dict:
    """`sample`'s checkpoint with the same send_email asked for and answered earlier in the conversation (a report
    sent again, say): what became of the dangling one is unknown all the same."""
    cp = load_sample(sample)
    earlier = {**cp["pendingToolUse"], "id": "toolu_01E"}
    return _answered_before(cp, earlier, f"已发送给 {earlier['input']['to']}，主题「{earlier['input']['subject']}」")


class _ToolSpy:
    """Stands in for execute_tool in the notebook and remembers each call."""

    def __init__(self, namespace: dict):
        self.namespace, self.calls = namespace, []
        self.shape = None  # a TOOL_OUTPUT_SHAPES name: the read-only outputs come in that shape

    def __call__(self, name, input):
        output = course_execute_tool(name, input)
        if self.shape and name in COURSE_READ_ONLY:
            output = TOOL_OUTPUT_SHAPES[self.shape](output)
        self.calls.append((name, input, output))
        return output

    def names(self) -> list:
        return [name for name, _, _ in self.calls]


def _reconciled(reconcile, cp: dict, spy: _ToolSpy) -> tuple[dict, dict]:
    """Run reconcile on cp; return (the dangling call as it was, the one tool_result reconcile added)."""
    pending = copy.deepcopy(cp["pendingToolUse"])
    before = copy.deepcopy(cp["messages"])
    counters = {name: cp[name] for name in ("version", "task", "turns", "tokensUsed")}
    spy.calls.clear()
    returned = call(f"reconcile（悬空的是 {pending['name']}）", reconcile, cp)
    expect(returned is not None, "reconcile 没有返回任何东西（返回了 None）：run_agent 要用它返回的检查点接着跑，"
                                 "最后要把检查点 return 出来。")
    expect(isinstance(returned, dict), f"reconcile 应该返回检查点（一个 dict），你的返回了 {short(returned)}")
    messages = returned.get("messages")
    expect(isinstance(messages, list), f"reconcile 返回的检查点里 messages 不是列表，而是 {short(messages)}。")
    if messages[:len(before)] != before:
        expect(before[-1] in messages, "末尾那条发起工具调用的 assistant 消息不见了：要原样保留它，"
                                       "删掉它，模型就忘了自己做过的决定。")
        fail(f"原来的 {len(before)} 条消息没有原样排在最前面：新的结果要追加在 messages 的末尾"
             "（紧跟在那条 assistant 消息后面），原来的消息一条也不改。")
    changed = [name for name, value in counters.items() if returned.get(name) != value]
    expect(not changed, f"reconcile 改动了 {'、'.join(changed)}：对账只补结果，不是一次模型调用，计数器和任务都保持原样。")
    added = messages[len(before):]
    expect(added, f"悬空的是 {pending['name']}：reconcile 没有在 messages 末尾追加结果，这个 tool_use 仍然没有配对。")
    expect(len(added) == 1, f"reconcile 应该恰好追加一条消息，你的追加了 {len(added)} 条。")
    message = added[0]
    expect(isinstance(message, dict) and message.get("role") == "user"
           and isinstance(message.get("content"), list) and message["content"],
           '追加的应该是一条 user 消息：{"role": "user", "content": [tool_result 块]}。')
    block = message["content"][0]
    expect(isinstance(block, dict) and block.get("type") == "tool_result",
           "追加的 user 消息里，tool_result 块要排在 content 的最前面。")
    expect(block.get("tool_use_id") == pending["id"],
           f"tool_result 的 tool_use_id 要等于悬空调用的 id（{pending['id']}），你的是 {short(block.get('tool_use_id'))}。")
    expect("pendingToolUse" in returned, "对账之后检查点里没有了 pendingToolUse 这个字段：检查点恰好六个字段，"
                                         "它要留着，值设为 None。")
    expect(returned.get("pendingToolUse") is None, "对账之后 pendingToolUse 应该设为 None：悬空调用已经有结果了。")
    try:
        check_tool_pairing(messages)
    except InvalidRequest as exc:
        if "valid boolean" not in str(exc):  # a string is_error gets its own hint below
            fail(f"对账之后的对话过不了 API 的配对检查：{api_advice(exc)}")
    return pending, block


RECONCILE_SAVES = ("reconcile 调用了 save_checkpoint：对账只补上结果、返回检查点，存档由 run_agent 在对账之后做，存到它收到的 "
                   "path。reconcile 不知道这个 path，自己存就存错了地方（默认的 checkpoint.json 可能是另一个任务的检查点，"
                   "被它盖掉）。")


@leaves_no_scratch
def check_reconcile(reconcile, namespace: dict) -> None:
    """`namespace` is the notebook's globals(): execute_tool is watched there while reconcile runs."""
    __tracebackhide__ = True
    spy, saves = _ToolSpy(namespace), []  # save_checkpoint stood in for: nothing written over the student's own
    with standing_in(namespace, "execute_tool", spy), \
            standing_in(namespace, "save_checkpoint", lambda state, *args, **kwargs: saves.append(state)):
        for name in sorted(COURSE_READ_ONLY):
            cp = load_sample("cpB") if name == "read_file" else _with_pending("cpB", name, _READ_ONLY_INPUTS[name])
            pending, block = _reconciled(reconcile, cp, spy)
            expect(spy.names() == [name], f"悬空的是只读的 {name}：应该通过 execute_tool 把它再执行一次"
                                          f"（实际执行的是：{spy.names() or '什么也没有'}）。读多少次都不改变外部世界。")
            expect(spy.calls[0][1] == pending["input"], f"重新执行 {name} 时要用悬空调用原来的 input。")
            expect(carries_output(block.get("content"), spy.calls[0][2]),
                   f"{name} 重新执行后，tool_result 的 content 里要有 execute_tool 这次返回的文本（前后可以加说明）。")
            flag = block.get("is_error")
            expect(flag is None or isinstance(flag, bool),
                   f"is_error 要是布尔值（True 或 False），你的是 {short(flag)}（{type(flag).__name__}）：API 会检查它的类型。")
            expect(not flag or spy.calls[0][2].startswith("错误"), f"{name} 重新执行成功了，它的结果不应该标 is_error。")

        for shape, said in OUTPUT_SAID.items():
            spy.shape = shape
            _, block = _reconciled(reconcile, load_sample("cpB"), spy)
            _expect_whole_output(block if spy.calls else None, spy.calls[0][2] if spy.calls else "",
                                 f"read_file 重新执行后返回了{said}")
        spy.shape = None

        worded = _words_after_call(_with_pending("cpB", "grep", _READ_ONLY_INPUTS["grep"]), "（先搜一下，再决定怎么整理。）")
        _reconciled(reconcile, worded, spy)
        # a run that used MAX_TURNS up is reconciled all the same: run_agent reconciles and saves before it stops
        max_turns = namespace.get("MAX_TURNS", 40)
        _, block = _reconciled(reconcile, {**load_sample("cpB"), "turns": max_turns}, spy)
        expect(spy.names() == ["read_file"], f"turns 已经用满（{max_turns}）时悬空的 read_file 也要再执行一次（实际执行的是："
                                             f"{spy.names() or '什么也没有'}）：对账不看 turns，run_agent 对账、存档之后才停下。")

        to_one = _with_pending("cpC", "send_email", {"to": "lin.lan@example.com", "subject": "本周结论"})  # one person's
        unknown = [load_sample("cpC"), _sent_before("cpC"), to_one, {**load_sample("cpC"), "turns": max_turns},
                   *(_with_pending("cpC", *tool) for tool in UNHEARD_OF_TOOLS)]
        for cp in unknown:
            pending, block = _reconciled(reconcile, cp, spy)
            tool = pending["name"]
            if tool == "send_email":
                expect("send_email" not in spy.names(),
                       "cpC 悬空的是 send_email，你的 reconcile 又执行了它：崩溃前那封信可能已经发出，再执行就是第二封。")
            else:
                expect(tool not in spy.names(),
                       f"课程没提过的 {tool} 被重新执行了：不在 READ_ONLY_TOOLS 里的工具一律不执行——"
                       "用只读白名单，而不是「危险工具」黑名单。")
            expect(not spy.names(), f"悬空的是 {tool}，reconcile 却执行了 {spy.names()}。")
            flag = block.get("is_error")
            expect(flag is not None, f"{tool} 没有重新执行，它的 tool_result 要带 is_error，告诉模型结果未知。")
            expect(flag is True, f"is_error 要是布尔值 True，你的是 {short(flag)}（{type(flag).__name__}）：API 会检查它的类型。")
            expect(text_of(block.get("content")).strip(),
                   f"{tool} 的 is_error 结果也要在 content 里写一句话：结果未知，可能已经生效，请先确认现状。")
            wrong = unknown_wording_problem(text_of(block.get("content")))
            expect(wrong is None, f"{tool} 的结果{wrong}。content 要写明结果未知、可能已经生效、请先确认现状。")

        missing = {"path": "./notes/meeting-08-31.md"}  # not in the workspace: the rerun fails
        _, block = _reconciled(reconcile, _with_pending("cpB", "read_file", missing), spy)
        expect(spy.names() == ["read_file"], f"悬空的 read_file 重新执行失败了，也只执行这一次（实际执行的是："
                                             f"{spy.names() or '什么也没有'}）：失败的结果就是答案，交给模型决定下一步。")
        expect(carries_output(block.get("content"), spy.calls[0][2]),
               "重新执行失败时，tool_result 的 content 里要有 execute_tool 返回的那段错误文本：模型读到原因才能换个办法。")
        expect(block.get("is_error") is True,
               "悬空的 read_file 重新执行失败了（execute_tool 返回的文本以「错误」开头），它的 tool_result 要带 is_error: True"
               f"（布尔值），和 run_agent 里一样；你的 is_error 是 {short(block.get('is_error', '（没有）'))}。")
    expect(not saves, RECONCILE_SAVES)
    print(PASSED)


# --- recovery_action -------------------------------------------------------------------------

ACTIONS = ("continue", "rerun", "is_error")
RECOVERY_SAVES = "recovery_action 调用了 save_checkpoint：它只做判断，不写文件。"


def check_recovery_action(recovery_action) -> None:
    """Each case's action; recovery_action only decides, so it runs no tool and saves nothing (watched in the
    notebook's namespace, the function's globals)."""
    __tracebackhide__ = True
    namespace = getattr(recovery_action, "__globals__", {})
    spy, saves = _ToolSpy(namespace), []
    with standing_in(namespace, "execute_tool", spy), \
            standing_in(namespace, "save_checkpoint", lambda state, *args, **kwargs: saves.append(state)):
        _recovery_cases(recovery_action)
    expect(not spy.calls, f"recovery_action 执行了 {spy.names()}：它只回答「该怎么恢复」，执行是 reconcile 的事。")
    expect(not saves, RECOVERY_SAVES)
    print(PASSED)


def _recovery_cases(recovery_action) -> None:
    __tracebackhide__ = True
    max_turns = getattr(recovery_action, "__globals__", {}).get("MAX_TURNS", 40)
    after_b = load_sample("cpB")
    after_b["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": after_b["pendingToolUse"]["id"], "content": "（读到的纪要全文）"}]})
    after_b["pendingToolUse"] = None
    finished = copy.deepcopy(after_b)
    finished["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "本周的结论整理好了。"}]})
    failed = with_failed_result(after_b, "错误：文件不存在：notes/week.md")
    cases = [("cpA", load_sample("cpA"), "continue"), ("cpB 补上结果之后", after_b, "continue"),
             ("cpB 补上的是一次失败的结果（is_error: true）", failed, "continue"),
             ("任务已经做完（最后一条是模型的收尾回复）", finished, "continue"),
             ("cpB", load_sample("cpB"), "rerun"), ("cpC", load_sample("cpC"), "is_error"),
             (f"cpB，turns 已经用满（{max_turns}）", {**load_sample("cpB"), "turns": max_turns}, "rerun"),
             (f"cpC，turns 已经用满（{max_turns}）", {**load_sample("cpC"), "turns": max_turns}, "is_error")]
    cases += [(f"悬空的 {name}", _with_pending("cpB", name, _READ_ONLY_INPUTS[name]), "rerun")
              for name in _READ_ONLY_INPUTS]
    cases += [(f"悬空的 {tool[0]}", _with_pending("cpC", *tool), "is_error") for tool in UNHEARD_OF_TOOLS]
    # the answer follows from the dangling tool alone: the same calls under the other task's wording
    for label, sample, other, wanted in (("cpB（换成发信任务的措辞）", "cpB", "cpC", "rerun"),
                                         ("cpC（换成整理纪要任务的措辞）", "cpC", "cpA", "is_error")):
        cp, task = load_sample(sample), load_sample(other)["task"]
        cases.append((label, {**cp, "task": task, "messages": [{"role": "user", "content": task}] + cp["messages"][1:]},
                      wanted))
    for label, cp, wanted in cases:
        untouched = copy.deepcopy(cp)
        action = call(f"recovery_action（{label}）", recovery_action, cp)
        expect(cp == untouched, f"{label}：recovery_action 只做判断，不应该修改检查点。")
        expect(isinstance(action, str) and action in ACTIONS,
               f'{label}：recovery_action 只能返回 "continue"、"rerun" 或 "is_error"，你返回了 {action!r}。')
        if action == wanted:
            continue
        pending = cp["pendingToolUse"]
        if pending is None:
            fail(f"{label}：你返回了 {action!r}，但 pendingToolUse 是 null，没有悬空调用，也就没有要对账的东西。")
        if wanted == "rerun":
            fail(f"{label}：你返回了 {action!r}，但悬空的 {pending['name']} 是只读工具，再执行一次不会改变任何东西。")
        fail(f"{label}：你返回了 {action!r}，但悬空的 {pending['name']} 会改变外部世界（或者课程根本不认识它），"
             "再执行一次可能让同一件事发生两次。")


# --- multiple choice -------------------------------------------------------------------------

def answer_letter(value) -> str | None:
    """A multiple-choice answer as one capital letter: spaces, lower case and a full-width letter (what a Chinese
    input method types, "Ｃ") read as the letter they are; None for what is no string."""
    return unicodedata.normalize("NFKC", value).strip().upper() if isinstance(value, str) else None


def check_letter(name: str, namespace: dict, letters: str = "ABCD") -> None:
    """The answer `name` in the notebook's namespace (globals()) is one letter; whether it is right is the grader's."""
    __tracebackhide__ = True
    _needs(namespace, name)
    value = namespace[name]
    expect(answer_letter(value) in set(letters),
           f'请把答案写成一个字母的字符串，例如 {name} = "{letters[0]}"；你的是 {value!r}。')
    print("格式正确 ✓ （只检查格式；答得对不对，提交后由隐藏测试判定）")


# --- the incident, replayed in this process -----------------------------------------------------

@leaves_no_scratch
def check_incident_fix(namespace: dict) -> None:
    """Resume the incident's checkpoint with your run_agent and reconcile, the email already delivered."""
    __tracebackhide__ = True
    _needs(namespace, "save_checkpoint", "load_checkpoint", "reconcile", "run_agent")
    run_agent = namespace["run_agent"]
    path = _scratch("check-incident-") / "checkpoint.json"
    incident = load_sample("cpC")
    _prepare(namespace, incident, path)
    spy = _ToolSpy(namespace)
    with MailServer() as mail, standing_in(namespace, "execute_tool", spy):
        course_execute_tool("send_email", incident["pendingToolUse"]["input"])  # sent just before the crash
        final = call("run_agent", run_agent, incident["task"], client=make_client(offline=True), path=path)
        delivered = mail.count()
    answered = [b for m in final["messages"] if isinstance(m.get("content"), list) for b in m["content"]
                if b.get("type") == "tool_result" and b.get("tool_use_id") == incident["pendingToolUse"]["id"]]
    expect(delivered == 1, f"重演事故后邮件服务器一共收到 {delivered} 封（崩溃前已经发出 1 封）："
                           + ("续跑时那封信又发了一遍。看看你的 reconcile 对 send_email 走的是哪条路。"
                              if delivered > 1 else "应该恰好 1 封。"))
    expect(spy.names().count("send_email") == 0, "续跑过程中 send_email 又被执行了：模型查过之后本不需要重发。")
    expect(len(answered) == 1 and answered[0].get("is_error") is True,
           "续跑后的对话里，悬空的 send_email 应该恰好得到一个 is_error 结果。")
    print(PASSED, "邮件只发了一封")


# --- errors in any cell, explained in Chinese --------------------------------------------------

def hint_for(error: BaseException) -> str | None:
    """One Chinese sentence for an exception a student's code or a demo cell can raise."""
    if isinstance(error, NotImplementedError):
        return "这里用到的函数还没写完（仍然是 raise NotImplementedError）：先完成它的答题单元格并运行。"
    if isinstance(error, NameError):
        name = getattr(error, "name", "") or "（见上）"
        if name == "reconcile":
            return ("reconcile 要到练习二才由你来写。在那之前，run_agent 只有在检查点的 pendingToolUse 不是 None 时"
                    "才调用它；这里的检查点没有悬空调用，不需要对账。")
        return (f"名字 {name} 还没有定义：请从上往下依次运行单元格；"
                "如果它是你要写的函数或答案，先完成并运行它的答题单元格。")
    if isinstance(error, anthropic.BadRequestError):
        return "API 拒绝了这次请求（HTTP 400）：" + api_advice(error)
    if isinstance(error, (KeyError, TypeError, AttributeError, IndexError, ValueError, OSError)):
        return (f"出错了（{type(error).__name__}）。{explain(error)}看上面 traceback 的最后几行，"
                "它指向出错的函数和那一行。")
    return None


def _show_in_chinese(shell, etype, value, tb, tb_offset=None):
    if isinstance(value, CheckFailed):
        stb = []
        cause = value.__cause__
        if cause is not None and not isinstance(cause, anthropic.BadRequestError):
            # Your code raised inside the check: show where, then what the check makes of it.
            frames = cause.__traceback__
            while frames is not None and frames.tb_frame.f_code.co_filename == __file__:
                frames = frames.tb_next  # start at the student's own code, not at this module
            stb = list(shell.InteractiveTB.structured_traceback(type(cause), cause, frames))
        shell._showtraceback(etype, value, stb + [f"\x1b[1;31m可见检查没有通过：\x1b[0m{value}"])
        return None
    stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    hint = hint_for(value)
    if hint:
        stb = list(stb) + [f"\n\x1b[1;33m提示：\x1b[0m{hint}"]
    shell._showtraceback(etype, value, stb)
    return None


def explain_errors_in_chinese() -> None:
    """In a notebook: every error a cell raises ends with a Chinese explanation; a failed check shows only its message."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython else None
    if shell is not None:
        shell.set_custom_exc((Exception,), _show_in_chinese)


# Imported in a notebook (the lesson's first cell does), every later error ends in Chinese; elsewhere this does nothing.
explain_errors_in_chinese()
