"""Lesson 4's visible checks: the effect ledger, the idempotency key and the reconcile that reads them.

    from course import checks_ledger as checks
    checks.check_append_ledger(append_ledger)
    checks.check_reconcile(reconcile, globals())

As in lesson 3 (`course.checks`, whose helpers these use), a check is a hint, not the
grade: it runs your function on a few situations and says in Chinese what it saw. Where
it needs to see what your code does it stands in for a name of the notebook for the time
of the check (`execute_tool`, `lookup_effect`, `reconcile`) and for `os.fsync`.
"""
import copy
import json
import os
from pathlib import Path

from . import checks as lesson3_checks
from .checks import (CHECKPOINT_FIELDS, LEAK_COST, PASSED, RECONCILE_SAVES, RECOVERY_SAVES, TOOL_OUTPUT_SHAPES,
                     UNHEARD_OF_TOOL, UNHEARD_OF_TOOLS, CheckFailed, _DiskEvents, _Recorder, _answered_before, _needs,
                     _prepare, _results_of, _scratch, _with_pending, _words_after_call, call, call_in_place,
                     carries_output, check_letter, expect, fail, leaves_no_scratch, open_paths, opened_since, short,
                     standing_in, text_of, unknown_wording_problem, working_in)
from .ledger import SITUATIONS, delivered_text, ledger_path, ledger_text, load_situation, read_ledger, records_for
from .mail import MailServer
from .model import InvalidRequest, check_tool_pairing, make_client, planned_client
from .samples import load_sample
from .tools import ServiceUnavailable, execute_tool as course_execute_tool, lookup_effect as course_lookup_effect

__all__ = ["check_lesson3_code", "check_effects", "check_append_ledger", "check_execute_with_ledger", "check_run_agent",
           "check_recovery_action", "check_reconcile", "check_incident_fix", "check_letter"]

EFFECT_KINDS = ("read_only", "idempotent", "non_idempotent")
EFFECT_TOOLS = ("get_balance", "set_ticket_status", "write_file", "add_label", "append_line", "charge_card",
                "send_email")
EMAIL_CALL = load_sample("cpC")["pendingToolUse"]
BLOCKED_FILE, BLOCKED_TEXT = "notes.txt", "台账的位置上是个文件夹"


# --- lesson 3's code, brought along ----------------------------------------------------------

def check_lesson3_code(save_checkpoint, load_checkpoint, lesson3_reconcile, namespace: dict) -> None:
    """Lesson 3's own visible checks, on the functions pasted into this notebook (not graded here)."""
    __tracebackhide__ = True
    lesson3_checks.check_save_load(save_checkpoint, load_checkpoint)
    lesson3_checks.check_reconcile(lesson3_reconcile, namespace)


# --- tools by effect -------------------------------------------------------------------------

def check_effects(effects) -> None:
    __tracebackhide__ = True
    expect(isinstance(effects, dict), f"EFFECTS 应该是一个 dict（工具名 → 类别），你的是 {type(effects).__name__}。")
    missing, extra = set(EFFECT_TOOLS) - set(effects), set(effects) - set(EFFECT_TOOLS)
    expect(not missing, f"EFFECTS 里少了这些工具：{sorted(missing)}。")
    expect(not extra, f"EFFECTS 里多了表格里没有的名字：{sorted(extra)}。")
    wrong = {name: kind for name, kind in effects.items() if kind not in EFFECT_KINDS}
    expect(not wrong, f'类别只能是 "read_only"、"idempotent" 或 "non_idempotent"，这些不是：{short(wrong)}。')
    expect(effects["send_email"] == "non_idempotent",
           f"send_email 被你归为 {effects['send_email']!r}：不带幂等键时，同样的参数发两次，收件人就收到两封。")
    print("格式正确 ✓ （send_email 归类正确；其余各项对不对，提交后由隐藏测试判定）")


# --- append_ledger ---------------------------------------------------------------------------

@leaves_no_scratch
def check_append_ledger(append_ledger) -> None:
    __tracebackhide__ = True
    folder = _scratch("check-ledger-")
    path = folder / "ledger.jsonl"
    first = {"type": "intent", "toolUseId": "toolu_01B", "name": "send_email", "input": dict(EMAIL_CALL["input"])}
    second = {"type": "outcome", "toolUseId": "toolu_01B", "output": "已发送给 team@example.com，主题「本周结论」"}
    events = _DiskEvents()
    with events.watching(append_ledger):
        call_in_place("append_ledger（台账还不存在）", append_ledger, path, first)
    expect(path.exists(), f"append_ledger 之后 {path.name} 不存在：台账就写在传进来的 path 上。")
    expect(events.file_synced(path),
           "append_ledger 返回之前没有 fsync 台账文件：写进去的一行可能还在页缓存里，断电后意图记录就没了，"
           "而恢复时会把“没有意图”理解成“从没开始过”。")
    _expect_line_synced(events, path)
    expect(("fsync", "folder") in events.events,
           "台账是这次新建的文件，但没有 fsync 它所在的文件夹：断电后“这个文件存在”这件事本身可能丢失（第 3 课的道理）。")
    events = _DiskEvents()
    with events.watching(append_ledger):
        call_in_place("append_ledger（台账已经有一行）", append_ledger, path, second)
    expect(events.file_synced(path), "第二次追加时没有 fsync 台账文件：每一条记录返回前都要落盘。")
    _expect_line_synced(events, path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    expect(len(lines) == 2, f"追加两条记录之后，台账应该正好两行（一条一行），你的是 {len(lines)} 行："
                            + ("json.dumps 不要带 indent，整条记录写在一行里。" if len(lines) > 2 else
                               "第一条被覆盖了吗？打开方式要用 \"a\"（追加），不是 \"w\"。"))
    expect(text.endswith("\n"), "每条记录都要以换行结束：读台账的人靠换行判断一条记录写完了没有。")
    try:
        records = read_ledger(path)
    except ValueError as exc:
        fail(f"课程的 read_ledger 读不回你的台账：{exc}")
    expect(records == [first, second], f"读回来的记录和写进去的不一样：{short(records, 160)}")
    bare = _scratch("check-bare-ledger-")
    with working_in(bare):  # the default ledger_path(CHECKPOINT_PATH) is a bare name: its dirname is ""
        call("append_ledger（path 只是个文件名：ledger_path(\"checkpoint.json\")，在当前文件夹里）",
             append_ledger, ledger_path("checkpoint.json"), first)
    expect(len((bare / ledger_path("checkpoint.json")).read_text(encoding="utf-8").splitlines()) == 1,
           "path 只是个文件名时，台账应该写在当前文件夹里，正好一行。")
    _check_appends_again(append_ledger, first, second)
    _check_append_blocked(append_ledger, first)
    print(PASSED)


def _blocked_ledger(prefix: str) -> Path:
    """A ledger's path where a folder stands, with a file in it: no record can be appended there."""
    path = _scratch(prefix) / "ledger.jsonl"
    path.mkdir()
    (path / BLOCKED_FILE).write_text(BLOCKED_TEXT, encoding="utf-8")
    return path


def _check_append_blocked(append_ledger, record: dict) -> None:
    """A folder where the ledger should be: the append fails loudly (OSError), and leaves the folder as it was."""
    __tracebackhide__ = True
    path = _blocked_ledger("check-ledger-blocked-")
    try:
        append_ledger(path, record)
    except OSError:
        pass
    except Exception as exc:
        fail(f"台账的路径上是一个文件夹，append_ledger 抛出了 {type(exc).__name__}（{short(str(exc), 80)}）："
             "写不进去时 open 自己会抛 OSError（这里是 IsADirectoryError），原样让它抛出去就好。")
    else:
        fail("台账的路径上是一个文件夹，记录根本写不进去，append_ledger 却正常返回了：不要用 try/except 把 OSError 吞掉。"
             "调用它的 execute_with_ledger 靠这个异常才知道 intent 没有落盘、不能去执行工具。")
    expect((path / BLOCKED_FILE).is_file() and (path / BLOCKED_FILE).read_text(encoding="utf-8") == BLOCKED_TEXT,
           "台账的路径上是一个文件夹，append_ledger 写不进去时动了这个文件夹里的文件：写不进去就让错误抛出去，别人的文件原样留着。")


def _check_appends_again(append_ledger, first: dict, second: dict) -> None:
    """Appends to a ledger appended to before in this kernel, and to one made again after it was removed: each goes
    into the file now at the path, and none leaves a descriptor open (a handle kept per ledger may stay)."""
    __tracebackhide__ = True
    folder = _scratch("check-ledger-again-")
    path = folder / "ledger.jsonl"
    call_in_place("append_ledger（新台账）", append_ledger, path, first)
    before = open_paths()
    call_in_place("append_ledger（同一本台账再追加一条）", append_ledger, path, second)
    path.unlink()  # as a new task begins: the next append makes the ledger again
    events = _DiskEvents()
    with events.watching(append_ledger):
        call_in_place("append_ledger（台账被删掉之后再追加）", append_ledger, path, first)
    expect(path.exists() and read_ledger(path) == [first],
           "台账文件被删掉之后再追加一条，path 上应该是一本只有这一条记录的新台账：每次追加都要按 path 打开此刻的文件，"
           "不能沿用之前打开的文件对象、也不能按内存里记着的「这本台账已经建好了」跳过新建。")
    left = opened_since(before)
    expect(not left, f"追加完成之后，这个进程还开着 {left} 的文件描述符，每追加一次就多一个：用 with 打开文件，"
                     f"os.open 得到的描述符（文件夹的也一样）要在 finally 里 os.close。{LEAK_COST}")
    expect(("fsync", "folder") in events.events,
           "台账被删掉之后再追加，它又是一个新建的文件，这次却没有 fsync 所在的文件夹：「文件存在」要看此刻的磁盘，"
           "不能按内存里记着的「这本台账建过了」省掉（第 3 课的道理：新文件的名字记在文件夹里，文件夹不落盘，断电后文件可能消失）。")


def _expect_line_synced(events, path: Path) -> None:
    """The fsync came after the line reached the file: at some fsync the file was as long as it is now."""
    size = path.stat().st_size
    expect(events.opened_synced(path) or size in events.sizes,
           "fsync 台账文件的时候，这一行还没有写进文件（还在 Python 的缓冲区里），fsync 落盘的是追加之前的内容："
           "先 flush()，再 os.fsync(f.fileno())。")


# --- execute_with_ledger ---------------------------------------------------------------------

class _ToolSpy:
    """Stands in for execute_tool: remembers each call, its key and the ledger as it was when the tool ran."""

    def __init__(self, ledger: Path | None = None, outputs: dict | None = None):
        self.ledger, self.calls = ledger, []
        self.outputs = outputs or {}  # tool name -> its answer here, not run (the course has no such tool)
        self.interrupted = False  # the next call runs, then the kernel is interrupted before it returns

    def __call__(self, name, input, idempotency_key=None):
        try:
            ledger_then = read_ledger(self.ledger) if self.ledger else []
        except ValueError:  # a record glued onto a torn line: what the check says once the reconcile is over
            ledger_then = []
        size = self.ledger.stat().st_size if self.ledger and self.ledger.exists() else None
        output = self.outputs[name] if name in self.outputs else \
            course_execute_tool(name, input, idempotency_key=idempotency_key)
        self.calls.append({"name": name, "input": input, "key": idempotency_key, "ledger": ledger_then,
                           "size": size, "output": output})
        if self.interrupted:
            self.interrupted = False
            raise KeyboardInterrupt  # Jupyter's stop button: the email went out, its result never came back
        return output

    def names(self) -> list:
        return [c["name"] for c in self.calls]


def _check_interrupted_send(execute_with_ledger, spy: _ToolSpy, ledger: Path) -> None:
    """The kernel interrupted (KeyboardInterrupt) while send_email runs, after the server took the email: the
    interrupt goes on to the caller, and the ledger keeps the intent alone (the result is unknown, not an error)."""
    email = {**copy.deepcopy(EMAIL_CALL), "id": "toolu_01I"}
    spy.interrupted = True
    try:
        execute_with_ledger(email, ledger)
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        fail(f"send_email 执行途中 kernel 被中断（KeyboardInterrupt），execute_with_ledger 却抛出了 {type(exc).__name__}：{exc}")
    else:
        fail("send_email 执行途中 kernel 被中断（KeyboardInterrupt），execute_with_ledger 却正常返回了：中断要让它抛出去，"
             "不要用 except BaseException 接住、当成一次失败记下来（信可能已经发出）。")
    records = read_ledger(ledger)
    expect(_of(records, email["id"], "intent") and not _of(records, email["id"], "outcome"),
           "send_email 执行途中 kernel 被中断（KeyboardInterrupt），信已经到了服务器，工具却没有返回：台账里这次调用只该有 "
           f"intent，你的台账是 {short(_of(records, email['id'], 'outcome') or records, 80)}。没有返回值，就没有 outcome 可记："
           "不要在 finally 或 except BaseException 里补记一条「错误」，恢复时才会按键去问服务端。")


def _check_known_key(execute_with_ledger, spy: _ToolSpy, ledger: Path, mail: MailServer) -> None:
    """A send whose key the server already holds (an earlier run delivered it; its ledger is gone): the server
    answers "already delivered", a definite result like any other, so the outcome is appended all the same."""
    email = {**copy.deepcopy(EMAIL_CALL), "id": "toolu_01K"}
    course_execute_tool(email["name"], email["input"], idempotency_key=email["id"])
    spy.calls.clear()
    held = mail.count()
    output = call("execute_with_ledger（send_email，服务器已经收过这把键）", execute_with_ledger, email, ledger)
    records = read_ledger(ledger)
    outcomes = _of(records, email["id"], "outcome")
    answers = [c["output"] for c in spy.calls] or [course_lookup_effect(email["name"], email["id"])]
    expect(len(outcomes) == 1 and outcomes[0].get("output") == output and output in answers,
           "服务器已经收过这把幂等键的信（之前那次运行发出了它，台账却没留下），这次执行时它回答「之前已经送达」、不再投递："
           "这也是确定的结果，照样追加一条 outcome，output 就是这段回答，再原样返回。不记的话台账里它只有 intent，"
           f"下次恢复只能当成结果未知去问。你的台账里这次调用是 {short(_of(records, email['id'], 'outcome') or '只有 intent', 80)}。")
    expect(mail.count() == held, f"服务器已经有这封信，不该再多一封：它原来有 {held} 封，现在有 {mail.count()} 封。")


def _check_execute_blocked(execute_with_ledger, spy: _ToolSpy, mail: MailServer) -> None:
    """The intent cannot be appended (a folder where the ledger should be): the error reaches the caller and the tool
    never runs, for the intent must be on disk before the effect."""
    __tracebackhide__ = True
    email = {**copy.deepcopy(EMAIL_CALL), "id": "toolu_01F"}
    spy.calls.clear()
    held = mail.count()
    try:
        execute_with_ledger(email, _blocked_ledger("check-execute-blocked-"))
        wrong = "正常返回了"
    except OSError:
        wrong = None
    except Exception as exc:
        wrong = f"抛出了 {type(exc).__name__}（{short(str(exc), 80)}）"
    ran = spy.names()
    expect(not ran and mail.count() == held,
           "台账的路径上是一个文件夹，intent 追加不进去，execute_with_ledger 却照样执行了 send_email：意图必须在执行之前落盘，"
           "没记下就执行，崩溃后台账里没有它，恢复代码以为它从没开始、会再发一次。追加 intent 失败时让异常抛出去，不要执行。")
    expect(wrong is None,
           "台账的路径上是一个文件夹，intent 追加不进去，execute_with_ledger 应该让 append_ledger 的 OSError 抛出去（调用它的 "
           f"run_agent 才知道出了事），你的{wrong}。")


def _of(records: list, call_id: str, kind: str) -> list:
    return [r for r in records if r.get("toolUseId") == call_id and r.get("type") == kind]


def _untyped(records: list, call_id: str, kind: str) -> str:
    """Where the call has no record of `kind`, one of its records that has no type to be read by, if any."""
    theirs = [r for r in records if r.get("toolUseId") == call_id and r.get("type") not in ("intent", "outcome")]
    return (f"台账里有它的一条记录 {short(theirs[0], 80)}，可它没有 \"type\": \"{kind}\"，恢复代码认不出这一条。"
            if theirs else "")


@leaves_no_scratch
def check_execute_with_ledger(execute_with_ledger, namespace: dict) -> None:
    __tracebackhide__ = True
    ledger = _scratch("check-execute-") / "ledger.jsonl"
    long_output = TOOL_OUTPUT_SHAPES["long"]("已清理 notes/meeting-08-25.md。")
    spy = _ToolSpy(ledger, outputs={"add_label": "", UNHEARD_OF_TOOLS[1][0]: long_output})
    read_call = {"id": "toolu_01R", "name": "read_file", "input": {"path": "./team.md"}}
    with MailServer() as mail, standing_in(namespace, "execute_tool", spy):
        output = call("execute_with_ledger（read_file）", execute_with_ledger, read_call, ledger)
        expect(spy.names() == ["read_file"], f"只读的 read_file 应该通过 execute_tool 执行一次，实际执行的是 {spy.names()}。")
        expect(output == spy.calls[0]["output"], "execute_with_ledger 要把 execute_tool 返回的文本原样返回。")
        expect(read_ledger(ledger) == [], "只读工具不需要记台账：重做无害，恢复时直接再执行一次就行。")
        spy.calls.clear()
        email = copy.deepcopy(EMAIL_CALL)
        events = _DiskEvents()
        with events.watching(execute_with_ledger):
            output = call("execute_with_ledger（send_email）", execute_with_ledger, email, ledger)
        expect(events.opened_synced(ledger) or ledger.stat().st_size in events.sizes,
               "execute_with_ledger 返回时，台账里最后写的那条（outcome）还没有 fsync：返回之后断电，它可能就没了，"
               "恢复时只剩 intent，成了要去问服务端的「结果未知」。intent 和 outcome 都要经 append_ledger 持久地写。")
        expect(spy.names() == ["send_email"], f"send_email 应该恰好执行一次，实际执行的是 {spy.names()}。")
        sent = spy.calls[0]
        expect(sent["key"] == email["id"], f"执行 send_email 时要带上幂等键：idempotency_key=call[\"id\"]"
                                           f"（{email['id']}），你传的是 {short(sent['key'])}。")
        expect(_of(sent["ledger"], email["id"], "intent"),
               "send_email 执行的那一刻，台账里还没有它的 intent 记录：意图要在执行之前写好并落盘，"
               "否则崩溃在执行途中时，恢复代码会以为它从没开始。" + _untyped(sent["ledger"], email["id"], "intent"))
        expect(len(_of(sent["ledger"], email["id"], "intent")) == 1,
               "send_email 执行的那一刻，台账里它的 intent 多记了一条：每次执行只在执行之前记一条 intent。")
        expect(not _of(sent["ledger"], email["id"], "outcome"), "执行之前台账里就有了 outcome：结果要在执行之后才记。")
        expect(events.opened_synced(ledger) or sent["size"] in events.sizes,
               "send_email 执行的那一刻，台账里的 intent 已经写进文件，却还没有 fsync：这时断电，intent 可能不在磁盘上，"
               "恢复时以为它从没开始、再执行一次。intent 也要经 append_ledger 持久地写，落盘之后才执行工具。")
        records = read_ledger(ledger)
        outcomes = _of(records, email["id"], "outcome")
        expect(len(outcomes) == 1 and outcomes[0].get("output") == sent["output"],
               "执行之后要追加一条 outcome 记录，output 就是 execute_tool 返回的文本（恢复时直接复用它）。"
               + _untyped(records, email["id"], "outcome"))
        expect(records.index(outcomes[0]) > records.index(_of(records, email["id"], "intent")[0]),
               "台账里 outcome 要在 intent 之后。")
        expect(output == sent["output"], "execute_with_ledger 要把 execute_tool 返回的文本原样返回。")
        expect(mail.count() == 1, f"邮件服务器收到了 {mail.count()} 封，应该是 1 封。")
        _check_interrupted_send(execute_with_ledger, spy, ledger)
        _check_known_key(execute_with_ledger, spy, ledger, mail)
        _check_execute_blocked(execute_with_ledger, spy, mail)
        label = {"id": "toolu_01L", "name": "add_label", "input": {"issue": 7, "label": "urgent"}}
        output = call("execute_with_ledger（add_label，它的输出是空字符串）", execute_with_ledger, label, ledger)
        outcomes = _of(read_ledger(ledger), label["id"], "outcome")
        expect(len(outcomes) == 1 and outcomes[0].get("output") == "",
               "add_label 返回了空字符串：空的输出也是确定的结果，照样追加一条 outcome（output 是 \"\"）；"
               "不记的话台账里它只有 intent，崩溃后恢复时它就成了要去问服务端的「结果未知」。")
        expect(output == "", f"execute_with_ledger 要把 execute_tool 返回的文本原样返回：这里是 \"\"，你返回了 {short(output)}。")
        name, tool_input = UNHEARD_OF_TOOLS[1]  # a read-only tool's name at the front
        purge = {"id": "toolu_01P", "name": name, "input": dict(tool_input)}
        call(f"execute_with_ledger（{name}，课程没提过的工具）", execute_with_ledger, purge, ledger)
        records = read_ledger(ledger)
        outcomes = _of(records, purge["id"], "outcome")
        expect(_of(records, purge["id"], "intent") and outcomes,
               f"{name} 不是只读工具：只读的只有 READ_ONLY_TOOLS 里那几个，工具名要整个相等，不能看开头。"
               "课程没提过的工具可能有副作用，也要记台账：先 intent，执行之后 outcome。")
        expect(outcomes[0].get("output") == long_output,
               f"{name} 返回了一段 {len(long_output)} 个字符的长文本，outcome 的 output 要整段记下、不能截短："
               "恢复时复用的就是它，截短了，续跑后模型拿到的就是不完整的结果。")
    print(PASSED)


# --- run_agent -------------------------------------------------------------------------------

@leaves_no_scratch
def check_run_agent(run_agent, namespace: dict) -> None:
    """The email task from scratch, then a resume from cpC with a stand-in reconcile."""
    __tracebackhide__ = True
    task = load_sample("cpC")["task"]
    path = _scratch("check-run-") / "checkpoint.json"
    recorder = _Recorder(namespace)  # the model calls and, stood in below, the saves, in order
    with MailServer() as mail, recorder.saves_logged(), recorder.tools_logged():
        final = call("run_agent（发信任务，从头开始）", run_agent, task, client=recorder.client, path=path)
        received = mail.received()
    expect(isinstance(final, dict) and final.get("pendingToolUse") is None, "run_agent 要返回最终状态，任务结束时没有悬空调用。")
    message = _save_points_problem(recorder.log, task, final, call("load_checkpoint", namespace["load_checkpoint"], path))
    expect(message is None, message)
    sends = [b for m in final["messages"] if isinstance(m.get("content"), list) for b in m["content"]
             if b.get("type") == "tool_use" and b.get("name") == "send_email"]
    expect(len(sends) == 1 and len(received) == 1, f"发信任务应该发出一封信，服务器收到 {len(received)} 封。")
    records = read_ledger(ledger_path(path))
    expect(_of(records, sends[0]["id"], "intent") and _of(records, sends[0]["id"], "outcome"),
           f"台账 {ledger_path(path).name}（和检查点同一个文件夹）里应该有这次 send_email 的 intent 和 outcome："
           "run_agent 执行工具要走 execute_with_ledger(call, ledger_path(path))。")
    expect(received[0]["Message-ID"] == f"<{sends[0]['id']}@idempotency.example.com>",
           "服务器收到的信不带这次调用的幂等键：执行 send_email 要用 tool_use 的 id 作为 idempotency_key。")
    expect(all(r.get("name") == "send_email" for r in records if r.get("type") == "intent"),
           "只读工具也记进了台账：只有不在 READ_ONLY_TOOLS 里的工具需要记。")

    _check_other_effects(run_agent, namespace)
    _check_turns_spent(run_agent, namespace)
    lesson3_checks.check_stops_when_it_cannot_go_on(run_agent, namespace, task, _scratch("check-stop-"))
    lesson3_checks.check_interrupted_model(run_agent, namespace, _scratch("check-interrupt-") / "checkpoint.json")

    # send_email pending, a read-only call (after either, the task needs no more email), an idempotent write; the
    # last two called as the signature allows, with client=None and with no client (the notebook's make_client, here
    # the recorder's offline one, makes it then); and the read-only call at save point A of the last turn (turns at
    # MAX_TURNS: reconciled and saved all the same, before a loop that never runs)
    used_up = {**load_sample("cpB"), "turns": namespace.get("MAX_TURNS", 40)}
    for sample, start, emails, form in (("cpC", load_sample("cpC"), 0, "given"), ("cpB", load_sample("cpB"), 0, "none"),
                                        ("cpC", _with_pending("cpC", "add_label", {"issue": 42, "label": "已复核"}),
                                         None, "absent"),
                                        ("turns 已经用满的 cpB", used_up, 0, "given")):
        recorder = _Recorder(namespace)  # the model calls, saves and reconcile calls, in order
        pending = start["pendingToolUse"]

        def stand_in_reconcile(cp, ledger):
            recorder.log.append(("reconcile", Path(ledger)))
            result = delivered_text(EMAIL_CALL) if cp["pendingToolUse"]["name"] == "send_email" else "（检查程序临时补上的结果）"
            cp["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": cp["pendingToolUse"]["id"], "content": result}]})
            cp["pendingToolUse"] = None
            return cp

        path = _scratch("check-resume-") / "checkpoint.json"
        namespace["save_checkpoint"](start, path)
        if sample == "cpB":  # beside a ledger whose last append a crash cut short: half a record, no line break
            ledger_path(path).write_bytes(ledger_text(records_for(EMAIL_CALL, ("intent", "outcome"))).encode("utf-8")
                                          + json.dumps(records_for(dict(EMAIL_CALL, id="toolu_01" + "H" * 22),
                                                                   ("intent",))[0], ensure_ascii=False).encode()[:45])
        given = {"given": {"client": recorder.client}, "none": {"client": None}, "absent": {}}[form]
        how = {"given": "", "none": "，client=None", "absent": "，照文档不传 client"}[form]
        label = f"从 {sample} 续跑，悬空的是 {pending['name']}{how}" + ("，台账末尾有半条被崩溃打断的记录（读台账用 read_ledger，"
                                                                    "它截掉这半行）" if sample == "cpB" else "")
        with MailServer() as mail, recorder.saves_logged(), standing_in(namespace, "reconcile", stand_in_reconcile), \
                standing_in(namespace, "make_client", lambda *args, **kwargs: recorder.client):
            call(f"run_agent（{label}）", run_agent, start["task"], **given, path=path)
            delivered = mail.count()
        reconciled = recorder.of("reconcile")
        expect(reconciled, f"从 {sample} 续跑时没有调用 reconcile：检查点里有悬空调用（{pending['name']}），要先对账，"
                           "只读工具和幂等写也一样：只清掉 pendingToolUse，它的 tool_use 就缺了 tool_result，API 会返回 400；"
                           "自己把它再执行一次，就跳过了台账（已有 outcome 的也做了第二遍）。")
        expect(reconciled[0][1] == ledger_path(path),
               f"reconcile 的第二个参数应该是这个任务的台账 ledger_path(path)，你传的是 {reconciled[0][1]}。")
        message = _resume_saves_problem(recorder.log, pending["id"])
        expect(message is None, f"{label}：{message}")
        expect(not [r for r in read_ledger(ledger_path(path)) if r.get("toolUseId") == pending["id"]],
               f"从 {sample} 续跑时，run_agent 自己往台账里记了悬空调用 {pending['name']} 的记录：台账记什么由 reconcile 按"
               "对账的结果决定，补 is_error（结果未知）和重新执行只读工具时台账不动。把「未知」记成 outcome，"
               "下次恢复就会把它当成确定的结果复用。")
        expect(emails is None or delivered == emails, "对账已经补上了结果，续跑后不应该再发信。")
    _check_resume_damaged_ledger(run_agent, namespace)
    print(PASSED)


def _check_resume_damaged_ledger(run_agent, namespace: dict) -> None:
    """send_email pending beside a ledger damaged in the middle (its intent after a line that is no record): the
    ValueError reconcile raises goes through run_agent, nothing is sent, the ledger stays as it was."""
    __tracebackhide__ = True
    start = load_sample("cpC")
    path = _scratch("check-damaged-") / "checkpoint.json"
    namespace["save_checkpoint"](start, path)
    half = ledger_text(records_for(dict(EMAIL_CALL, id="toolu_01" + "D" * 22), ("intent",)))[:30]
    text = half + ledger_text(records_for(start["pendingToolUse"], ("intent",)))
    ledger_path(path).write_text(text, encoding="utf-8")
    recorder = _Recorder(namespace)

    def stand_in_reconcile(cp, ledger):
        read_ledger(ledger)  # the course's: a line in the middle that is no record raises ValueError
        cp["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": cp["pendingToolUse"]["id"], "content": "（检查程序临时补上的结果）"}]})
        cp["pendingToolUse"] = None
        return cp

    with MailServer() as mail, standing_in(namespace, "reconcile", stand_in_reconcile), recorder.saves_logged(), \
            recorder.tools_logged():
        raised = lesson3_checks._raised(run_agent, start["task"], recorder, path)
        delivered = mail.count()
    if raised is not None:  # its frames would keep this one, and the mail server's folder, until a collection
        raised.__traceback__ = None
    kept = ledger_path(path).exists() and ledger_path(path).read_text(encoding="utf-8") == text
    did = ("没有抛出错误" if raised is None else f"抛出的是 {type(raised).__name__}" if not isinstance(raised, ValueError)
           else "调用了模型" if recorder.of("model") else "执行了工具" if recorder.of("tool") or delivered
           else "" if kept else "改动、挪走或删掉了台账")
    expect(not did, "从 cpC 续跑，检查点旁边的台账中间有一行不是完整的记录（文件坏了，悬空的 send_email 的 intent 在它后面），"
                    f"reconcile 读台账时抛出 ValueError；你的 run_agent {did}。坏了的台账不等于没有记录：挪开它、换一本新的，"
                    "或者跳过读不出来的行，intent 就不见了，做过的调用会再做一次。要让 ValueError 抛出去，台账原样留着等人来看。")


def _resume_saves_problem(log: list, call_id: str) -> str | None:
    """What is wrong with a resume's saves around reconcile (`log` as _Recorder keeps it): a save before reconcile
    that no longer names the dangling call, or a first model call after reconcile with no save of its result before it."""
    first = next(number for number, entry in enumerate(log) if entry[0] == "reconcile")
    if any(entry[0] == "save" and not _names(entry[1], call_id) for entry in log[:first]):
        return ("对账之前你的 run_agent 存下了一份检查点，pendingToolUse 已经不是这次悬空调用，它的 tool_use 却还没有 "
                "tool_result：此刻崩溃，下次续跑没有悬空调用可对账，发给模型的对话里这个 tool_use 缺了结果（API 回 400）。"
                "pendingToolUse 要留到 reconcile 补上结果之后，再和结果一起存档。")
    model = next((number for number, entry in enumerate(log) if entry[0] == "model" and number > first), None)
    saves = [entry[1] for entry in log[first:model] if entry[0] == "save"]
    if model is not None and not (saves and isinstance(saves[-1], dict) and saves[-1].get("pendingToolUse", "") is None
                                  and _results_of(saves[-1].get("messages") or [], call_id)):
        return ("reconcile 之后要照旧存一次档（pendingToolUse 为 None，带着对账补上的 tool_result），再调用模型："
                "不存的话，此刻崩溃，续跑时磁盘上还是对账之前的检查点，又要对一次账，只读工具再执行一次。")
    return None


def _names(state, call_id: str) -> bool:
    """Whether a saved state still names the dangling call as pending, or already holds its result."""
    pending = state.get("pendingToolUse") if isinstance(state, dict) else None
    return (isinstance(pending, dict) and pending.get("id") == call_id) or bool(
        isinstance(state, dict) and _results_of(state.get("messages") or [], call_id))


def _save_points_problem(log: list, task: str, final: dict, on_disk) -> str | None:
    """What is wrong with a run's saves (lesson 3's save points, the same with a ledger), `log` as _Recorder keeps it:
    a save that is not the checkpoint format or not this task's, a save whose pendingToolUse a tool_result already
    answers, a tool run with no save point A naming it before, a model call after a tool's result with no save point
    B before it, a run that ends unlike its last save."""
    saved, calls = None, 0
    for entry in log:
        if entry[0] == "save":
            saved = entry[1]
            missing = [field for field in CHECKPOINT_FIELDS if not isinstance(saved, dict) or field not in saved]
            if missing or saved.get("task") != task:
                return (f"run_agent 存下的检查点{'缺了字段 ' + '、'.join(missing) if missing else '里的 task 不是这次的任务'}："
                        f"第 4 课沿用第 3 课的检查点格式，恰好六个字段（{'、'.join(CHECKPOINT_FIELDS)}），新任务的 task "
                        "就是传进来的 task。")
            pending = saved.get("pendingToolUse")
            if isinstance(pending, dict) and _results_of(saved.get("messages") or [], pending.get("id")):
                return ("run_agent 存下的一份检查点里，pendingToolUse 还是一个已经有了 tool_result 的调用：此刻崩溃，续跑时又对一次账，"
                        "同一个 tool_use 得到第二个 tool_result（API 回 400）。结果追加进 messages 之后，先把 pendingToolUse 设为 "
                        "None，再存存档点 B。")
        elif entry[0] == "tool":
            pending = saved.get("pendingToolUse") if isinstance(saved, dict) else None
            if not (isinstance(pending, dict) and pending.get("name") == entry[1] and pending.get("input") == entry[2]):
                where = f"最近一次存档的 pendingToolUse 是 {short(pending)}" if isinstance(saved, dict) else "这时还没有存过档"
                return (f"执行 {entry[1]} 的那一刻，磁盘上的检查点还没有记下这次调用（{where}）：存档点 A 要在执行工具之前。"
                        "在执行途中或刚执行完时崩溃，检查点里就没有这次调用，续跑时模型会重新提出一个新 id 的调用，键变了，"
                        "有副作用的工具就做了两遍。")
        elif entry[0] == "model":
            calls += 1
            sent = {b.get("tool_use_id") for m in entry[1] or [] if isinstance(m, dict) and isinstance(m.get("content"), list)
                    for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"}
            answered = all(_results_of(saved.get("messages") or [], id_) for id_ in sent) if isinstance(saved, dict) else False
            if calls > 1 and not (answered and saved.get("pendingToolUse", "（没有这个字段）") is None):
                pending = saved.get("pendingToolUse", "（没有这个字段）") if isinstance(saved, dict) else "（还没有存过）"
                return (f"第 {calls} 次调用模型之前，磁盘上的检查点还没有记下上一个工具的结果（存档点 B；最近一次存档的 "
                        f"pendingToolUse 是 {short(pending)}，应该是 None）：此刻崩溃，续跑时又要对账。每一轮在 tool_result "
                        "追加进 messages、pendingToolUse 设为 None 之后存存档点 B。")
    if on_disk != final:
        return ("run_agent 结束时，磁盘上的检查点和它返回的状态不一样：模型最后一次回复（不要工具）之后也要存档，否则磁盘上"
                "停在上一个存档点，下次运行又要调用模型，把做完的任务再做一轮。")
    return None


def _check_turns_spent(run_agent, namespace: dict) -> None:
    """A checkpoint at save point B whose turns reached MAX_TURNS: the run returns it with no model call."""
    __tracebackhide__ = True
    max_turns = namespace.get("MAX_TURNS", 40)
    spent = {**load_sample("cpA"), "turns": max_turns}
    path = _scratch("check-spent-") / "checkpoint.json"
    _prepare(namespace, spent, path)
    recorder = _Recorder(namespace)

    def reconcile(*args, **kwargs):
        fail("run_agent 在没有悬空调用时也调用了 reconcile（检查点的 pendingToolUse 是 None）：只有 pendingToolUse 不是 None "
             "时才需要对账。")

    with MailServer(), standing_in(namespace, "reconcile", reconcile):
        call("run_agent（turns 已经用满的检查点）", run_agent, spent["task"], client=recorder.client, path=path)
    calls = len(recorder.of("model"))
    expect(not calls, f"检查点里的 turns 已经等于 MAX_TURNS（{max_turns}），恢复后不应该再调用模型（你的调用了 {calls} 次）："
                      "上限是跨重启累计的，循环条件是 turns < MAX_TURNS。")


def _check_other_effects(run_agent, namespace: dict) -> None:
    """A model that asks for tools with effects other than send_email: each goes through the ledger with its key."""
    __tracebackhide__ = True
    path = _scratch("check-effects-") / "checkpoint.json"
    charge = {"name": "charge_card", "input": {"customer": "cus_demo", "amount": 4200}}
    # the same charge asked for twice (two calls, two ids: a second charge); another task's records already in the
    # folder's ledger, its send_email still dangling
    plan = [charge, {"name": "add_label", "input": {"issue": 7, "label": "urgent"}},
            {"name": UNHEARD_OF_TOOL[0], "input": dict(UNHEARD_OF_TOOL[1])}, charge]  # and a tool no table names
    others = records_for(dict(EMAIL_CALL, id="toolu_01" + "O" * 22), ("intent",))
    ledger_path(path).write_text(ledger_text(others), encoding="utf-8")
    spy = _ToolSpy()
    with standing_in(namespace, "execute_tool", spy):
        call(f"run_agent（模型依次要求 {'、'.join(step['name'] for step in plan)}）", run_agent, "给客户扣款并打标签",
             client=planned_client(plan), path=path)
    records = read_ledger(ledger_path(path))
    expect(records[:len(others)] == others,
           "检查点旁边的台账里原有另一个任务的记录（同一个文件夹里的检查点共用 ledger_path(path)），运行之后它们不见了或者变了："
           "台账只追加、不修改，从头开始的新任务也一样；那个任务续跑时要靠它们对账。")
    for ran in spy.calls:
        expect(ran["key"] is not None and _of(records, ran["key"], "intent"),
               f"模型要求 {ran['name']} 时，run_agent 执行它没有带幂等键、台账里也没有它的 intent："
               "循环里每一个工具调用都要走 execute_with_ledger，不只是 send_email——charge_card、append_line "
               "这些不幂等的工具崩溃后重做就是做两遍；哪张表都没列出的工具也可能有副作用，只有 READ_ONLY_TOOLS 里的不记。")
        expect(_of(records, ran["key"], "outcome"),
               f"模型要求 {ran['name']} 时，它执行完了（返回：{short(ran['output'], 60)}），台账里却没有它的 outcome："
               "工具返回的文本就是确定的结果，哪怕是一段错误也要记下，否则恢复时它只有 intent，成了「结果未知」。")
    again = ("第二次 charge_card 和第一次同名同参数，却是另一次调用（id 不同）：模型要扣两次款，就执行两次，各带各的键。"
             if spy.names() == [step["name"] for step in plan[:-1]] else "")
    expect(len(spy.calls) == len(plan), f"模型依次要求了 {len(plan)} 个工具，实际执行的是 {spy.names()}。{again}")


# --- recovery_action -------------------------------------------------------------------------

ACTIONS = ("continue", "rerun", "reuse", "record", "execute", "is_error")
_WANTED = {"S1": "reuse", "S2": "record", "S3": "execute", "S4": "execute", "S5": "is_error", "S6": "rerun"}


class _CountingLookup:
    def __init__(self, lookup):
        self.lookup, self.calls = lookup, []

    def __call__(self, name, key):
        self.calls.append((name, key))
        return self.lookup(name, key)


def _cases() -> list:
    """(label, checkpoint, records, lookup, wanted action): the lesson's situations and a few more."""
    cases = [(f"情况 {name}", *load_situation(name), _WANTED[name]) for name in SITUATIONS]
    nothing_sent = load_situation("S4")[2]
    cases.append(("cpA（没有悬空调用）", load_sample("cpA"), [], nothing_sent, "continue"))
    earlier = dict(EMAIL_CALL, id="toolu_01Q")  # another email of the same task, long finished
    cp, records, lookup = load_situation("S3")
    cases.append(("情况 S3，台账里还有另一封信的记录", cp, records_for(earlier, ("intent", "outcome")) + records,
                  lookup, "execute"))
    unheard = _with_pending("cpC", *UNHEARD_OF_TOOL)
    pending = unheard["pendingToolUse"]
    intent = [{"type": "intent", "toolUseId": pending["id"], "name": pending["name"], "input": pending["input"]}]
    cases.append((f"悬空的 {UNHEARD_OF_TOOL[0]}，有意图没结果", unheard, intent, nothing_sent, "is_error"))
    cases.append((f"悬空的 {UNHEARD_OF_TOOL[0]}，台账里什么也没有", unheard, [], nothing_sent, "execute"))
    unheard_outcome = intent + [{"type": "outcome", "toolUseId": pending["id"], "output": "已完成"}]
    cases.append((f"悬空的 {UNHEARD_OF_TOOL[0]}，有意图也有结果", unheard, unheard_outcome, nothing_sent, "reuse"))
    # an idempotent write is no read-only tool: "rerun" is for READ_ONLY_TOOLS only, it goes through the ledger
    labelled = _with_pending("cpC", "add_label", {"issue": 42, "label": "已复核"})
    cases.append(("悬空的 add_label（幂等写），台账里什么也没有", labelled, [], nothing_sent, "execute"))
    # an intent written twice: S3's call run again through execute_with_ledger (the server had said "not received")
    cp, records, lookup = load_situation("S3")
    cases.append(("情况 S3 之后又走了一遍 execute_with_ledger，崩溃在执行途中（两条 intent）", cp, records + records,
                  lookup, "execute"))
    cp5, records5, down = load_situation("S5")  # the second send may have arrived too: with the server down, unknown
    cases.append(("情况 S5，台账里这次调用有两条 intent（对账时带键重发，又崩溃了）", cp5, records5 + records5, down,
                  "is_error"))
    done = records + records_for(cp["pendingToolUse"], ("intent", "outcome"))
    cases.append(("情况 S3 之后又走了一遍 execute_with_ledger，做完了（两条 intent、一条 outcome）", cp, done, lookup, "reuse"))
    cp, records, lookup = load_situation("S1")
    failed = [dict(r, output="错误：邮件没有发出去：[Errno 111] Connection refused") if r["type"] == "outcome" else r
              for r in records]
    cases.append(("情况 S1，但记下的 outcome 是一段错误", cp, failed, lookup, "reuse"))
    later = dict(earlier, id="toolu_01Z")  # a call made after this one (another run writing to the same ledger)
    cases.append(("情况 S1，台账里它的记录后面还有另一次调用的 intent", cp, records + records_for(later, ("intent",)),
                  lookup, "reuse"))
    busy = [record for number in range(12)  # a long-running agent's ledger: twelve later calls, each finished
            for record in records_for(dict(earlier, id=f"toolu_01L{number:02d}"), ("intent", "outcome"))]
    cases.append(("情况 S1，台账里它的记录后面还有十二次调用的记录", cp, records + busy, lookup, "reuse"))
    empty = [dict(r, output="") if r["type"] == "outcome" else r for r in records]
    cases.append(("情况 S1，但记下的 outcome 是空字符串（工具的输出本来就是空的）", cp, empty, lookup, "reuse"))
    cp, records, _ = load_situation("S2")
    cases.append(("情况 S2，但服务器按键查到的结果是空字符串（\"\" 也是查到了，没查到才是 None）", cp, records,
                  _answering_empty(cp["pendingToolUse"]["id"]), "record"))
    return cases


def _answering_empty(call_id: str):
    """A lookup that found `call_id`, its result an empty text (the tool's output was empty), and nothing else."""
    return lambda name, key: "" if key == call_id else None


def check_recovery_action(recovery_action) -> None:
    __tracebackhide__ = True
    namespace = getattr(recovery_action, "__globals__", {})  # the notebook's: save_checkpoint is watched there
    saves = []
    with standing_in(namespace, "save_checkpoint", lambda state, *args, **kwargs: saves.append(state)):
        for label, cp, records, lookup, wanted in _cases():
            untouched = copy.deepcopy((cp, records))
            spy = _CountingLookup(lookup)
            action = call(f"recovery_action（{label}）", recovery_action, cp, records, spy)
            expect((cp, records) == untouched, f"{label}：recovery_action 只做判断，不应该修改检查点或台账记录。")
            expect(isinstance(action, str) and action in ACTIONS,
                   f"{label}：recovery_action 只能返回 {', '.join(map(repr, ACTIONS))} 之一，你返回了 {action!r}。")
            pending_id = (cp["pendingToolUse"] or {}).get("id")
            kinds = {r.get("type") for r in records if r.get("toolUseId") == pending_id}
            if action != wanted:
                ours = [r.get("type") for r in records if r.get("toolUseId") == pending_id]
                fail(f"{label}：你返回了 {action!r}。这里悬空的是 {short(cp['pendingToolUse'])}，台账里它的记录是 "
                     f"{ours or '（没有）'}，服务器的回答是 {_answer(lookup, cp)}。再对一遍对账的四条规则。")
            intent_only = wanted != "rerun" and "intent" in kinds and "outcome" not in kinds
            expect(intent_only or not spy.calls,
                   f"{label}：只在台账里只有 intent 时才问服务端（lookup），这里用不着问（你返回的 {action!r} 是对的），"
                   f"你的函数却问了 {len(spy.calls)} 次：台账里有 outcome 就直接复用，服务端连不上时也一样。")
            expect(not intent_only or spy.calls,
                   f"{label}：台账里只有 intent，要先用悬空调用的 id 问服务端 lookup(name, id)，它答不上来"
                   "（抛出 ServiceUnavailable）才返回 'is_error'；你的函数没有问就下了结论：哪个工具的服务能按键查询，"
                   "由传进来的 lookup 回答，不能写死在代码里。")
    expect(not saves, RECOVERY_SAVES)
    print(PASSED)


def _answer(lookup, cp) -> str:
    pending = cp["pendingToolUse"]
    if pending is None:
        return "（不用问）"
    try:
        found = lookup(pending["name"], pending["id"])
    except ServiceUnavailable as exc:
        return f"无法回答（{exc}）"
    return "没有这次调用" if found is None else f"已经收到（{short(found, 50)}）"


# --- reconcile -------------------------------------------------------------------------------

TORN_ADVICE = ("这一次台账末尾有半行（上次追加时崩溃留下的，断在一个中文字符中间）：读台账时要先按字节找到最后一个换行、"
               "把它之后的部分截掉（不能按字符截，也不能先把整个文件解码），再解码完整的行，课程的 read_ledger 就是这样做的；"
               "截掉之后，下一条记录才会从新的一行开始。")
LINE_ADVICE = ("台账里另一封信的 outcome 含一个 U+2028（json.dumps(ensure_ascii=False) 不转义它）：分行只能按 \"\\n\"，"
               "str.splitlines() 在 U+2028、U+0085 这些地方也会断开，把一条记录断成两行。")


def _reconcile_once(reconcile, cp: dict, ledger: Path, label: str, advice: str = "") -> dict:
    """Run reconcile; check the one paired tool_result it must add; return that block. `advice` follows the message
    when reconcile raised."""
    pending, before = copy.deepcopy(cp["pendingToolUse"]), copy.deepcopy(cp["messages"])
    try:
        returned = call(f"reconcile（{label}）", reconcile, cp, ledger)
    except CheckFailed as failed:
        if advice and failed.__cause__ is not None:  # the student's code raised
            raise CheckFailed(f"{failed}{advice}") from failed.__cause__
        raise
    expect(isinstance(returned, dict), f"{label}：reconcile 应该返回检查点（一个 dict），你的返回了 {short(returned)}。")
    messages = returned.get("messages")
    expect(isinstance(messages, list) and messages[:len(before)] == before,
           f"{label}：原来的消息要原样保留，尤其是末尾那条发起调用的 assistant 消息。")
    added = messages[len(before):]
    expect(len(added) == 1 and added[0].get("role") == "user" and isinstance(added[0].get("content"), list)
           and added[0]["content"] and added[0]["content"][0].get("type") == "tool_result",
           f"{label}：reconcile 应该恰好追加一条 user 消息，content 以 tool_result 块开头。")
    block = added[0]["content"][0]
    expect(block.get("tool_use_id") == pending["id"], f"{label}：tool_result 的 tool_use_id 要等于悬空调用的 id（{pending['id']}）。")
    expect(returned.get("pendingToolUse") is None, f"{label}：对账之后 pendingToolUse 应该设为 None。")
    try:
        check_tool_pairing(messages)
    except InvalidRequest as exc:
        fail(f"{label}：对账之后的对话过不了 API 的检查：{exc}")
    return block


@leaves_no_scratch
def check_reconcile(reconcile, namespace: dict) -> None:
    __tracebackhide__ = True
    email = EMAIL_CALL
    saves = []  # save_checkpoint stood in for: nothing written over the student's own
    # S2 three times: once the server's answer is an empty text, which is found too and recorded as it is; once the
    # call has two intents (sent again with its key after the server had said "not received"): still asked, recorded
    for name, empty, twice in (("S1", False, False), ("S2", False, False), ("S3", False, False), ("S4", False, False),
                               ("S5", False, False), ("S6", False, False), ("S2", True, False), ("S2", False, True)):
        cp, records, _ = load_situation(name)
        records = records * 2 if twice else records
        _, _, state = SITUATIONS[name]
        label = f"情况 {name}" + ("，服务器按键查到的结果是空字符串（\"\" 也是查到了，没查到才是 None）" if empty else "") + (
            "，台账里这次调用有两条 intent（对账时带键重发过，又崩溃了）" if twice else "")
        ledger = _scratch("check-reconcile-") / "ledger.jsonl"
        # an earlier, finished call with the same name and input: its outcome answers another call, never this one;
        # its output holds a U+2028, which json.dumps(ensure_ascii=False) leaves as it is (a line ends at "\n" only)
        twin = [dict(r, output=r["output"] + "\u2028（回执）") if r["type"] == "outcome" else r
                for r in records_for({**email, "id": "toolu_01" + "T" * 22}, ("intent", "outcome"))] \
            if cp["pendingToolUse"]["name"] == "send_email" else []
        if twin:  # ... asked for and answered in the conversation too (a report sent twice): that result is not this call's
            _answered_before(cp, {**email, "id": twin[0]["toolUseId"]}, twin[-1]["output"])
        if name in ("S2", "S3", "S5"):  # the model wrote on after asking for the tool (the API allows it)
            _words_after_call(cp, "发出去之后我再确认一遍。")
        data = ledger_text(twin + records).encode("utf-8")
        torn = name in ("S2", "S3") and not empty and not twice  # reconcile appends here: after a torn last line
        if torn:
            half = ledger_text(records_for(dict(email, id="toolu_01" + "K" * 22), ("intent",))).encode("utf-8")
            data += half[:half.index("本".encode("utf-8")) + 1]
        ledger.write_bytes(data)
        spy = _ToolSpy(ledger)
        lookups = _CountingLookup(_answering_empty(email["id"]) if empty else course_lookup_effect)
        with MailServer() as mail, standing_in(namespace, "execute_tool", spy), \
                standing_in(namespace, "lookup_effect", lookups), \
                standing_in(namespace, "save_checkpoint", lambda state, *args, **kwargs: saves.append(state)):
            if state == "sent":
                course_execute_tool("send_email", email["input"], idempotency_key=email["id"])  # before the crash
            if state == "down":
                mail.stop()
            advice = (TORN_ADVICE if torn else "") + (LINE_ADVICE if twin else "")
            block = _reconcile_once(reconcile, cp, ledger, label, advice)
            delivered = mail.count()
        try:
            after = read_ledger(ledger)
        except ValueError as exc:
            fail(f"{label}：对账之后台账读不出来了（{short(str(exc), 80)}）。{TORN_ADVICE if torn else LINE_ADVICE}")
        content, flag = block.get("content"), block.get("is_error")
        if name == "S6":
            expect(spy.names() == ["read_file"], f"{label}：悬空的是只读的 read_file，应该再执行一次（实际：{spy.names()}）。")
            expect(after == twin + records, f"{label}：悬空的是只读工具，重新执行之后台账不动：只读工具不记台账"
                                            "（不追加 intent，也不追加 outcome）。")
            continue
        # the same key sent again is harmless (the server delivers a key once): only that may be tried
        others = [c["name"] for c in spy.calls if c["name"] != "send_email" or c["key"] != email["id"]]
        if name == "S5":
            expect(not others, f"{label}：服务器答不上来，不能执行 {others}：信可能已经发出。")
            expect(flag is True, f"{label}：服务器答不上来，结果真的未知：tool_result 要带 is_error=True（布尔值），你的是 {short(flag)}。")
            expect(text_of(content).strip(), f"{label}：is_error 结果也要在 content 里写一句：结果未知、请先确认。")
            wrong = unknown_wording_problem(text_of(content))
            expect(wrong is None, f"{label}：is_error 结果{wrong}。content 要写明结果未知、可能已经生效、请先确认现状。")
            guessed = [r for r in after if r.get("type") == "outcome" and r not in twin + records]
            expect(not guessed, f"{label}：结果未知时台账不动，你的 reconcile 追加了 {short(guessed)}：记一条 outcome，"
                                "下次恢复就会把「未知」当成确定的结果复用，is_error 也丢了。")
            continue
        expect(not flag, f"{label}：结果是查得到的，不应该标 is_error——这正是台账要消灭的“未知”。")
        expect(delivered == 1, f"{label}：对账之后邮件服务器一共有 {delivered} 封信，应该正好 1 封。")
        if name == "S1":
            expect(not spy.names(), f"{label}：台账里已经有 outcome，直接复用，不用再执行（你执行了 {spy.names()}）。")
            expect(carries_output(content, records[-1]["output"]),
                   f"{label}：tool_result 要带着台账 outcome 里记的 output（整段，前后加几句话可以）。")
            before = twin + records
            expect(after == before, f"{label}：复用台账里的 outcome 时台账不动，" + (
                f"你的 reconcile 又追加了 {short(after[len(before):])}。" if after[:len(before)] == before
                else "你的 reconcile 却改了台账里原有的记录。"))
            continue
        if name == "S2":
            # asking by key first, or sending again with the same key (the server answers "already delivered")
            expect(("send_email", email["id"]) in lookups.calls or spy.names(),
                   f"{label}：有意图没结果，要先用幂等键问服务器：lookup_effect(\"send_email\", \"{email['id']}\")。")
            expect(not others, f"{label}：信已经送达，重发也只能带同一把键 {email['id']}，你执行了 {short(others)}。")
            answers = {"" if empty else delivered_text(email)} | {c["output"] for c in spy.calls}
            expect(any(carries_output(content, answer) for answer in answers),
                   f"{label}：tool_result 要带着服务器的回答（查到的那段文本，整段，前后加几句话可以）。")
        else:  # S3, S4: never reached the server, executed once with the same key
            sends = [c for c in spy.calls if c["name"] == "send_email"]
            expect(len(sends) == 1, f"{label}：服务器上没有这封信，应该执行一次 send_email（实际执行了 {len(sends)} 次）。")
            expect(sends[0]["key"] == email["id"], f"{label}：重新执行要带同一把幂等键 {email['id']}，你传的是 {short(sends[0]['key'])}。")
            expect(_of(sends[0]["ledger"], email["id"], "intent"),
                   f"{label}：执行之前台账里要有这次调用的 intent（走 execute_with_ledger）。")
            expect(carries_output(content, sends[0]["output"]),
                   f"{label}：tool_result 要带着这次执行返回的文本（整段，前后加几句话可以）。")
        outcomes = _of(after, email["id"], "outcome")
        expect(outcomes, f"{label}：对账得到的结果要记进台账（追加 outcome），下次恢复就不用再问。")
        expect(len(outcomes) == 1, f"{label}：对账给这次调用往台账里追加了 {len(outcomes)} 条 outcome：每个调用只记一条 "
                                   "outcome，同一个结果不要追加两次。")
    _check_nothing_recorded(reconcile, namespace, saves)
    _check_damaged_ledger(reconcile, namespace, saves)
    expect(not saves, RECONCILE_SAVES)
    print(PASSED)


def _check_nothing_recorded(reconcile, namespace: dict, saves: list) -> None:
    """The ledger holds nothing of the pending call, S4 in two more forms: no ledger file yet (a crash after save
    point A, before the run's first intent) with the mail server down; an empty ledger with a charge_card, which no
    key protects and no service can be asked about. No intent means the call never started: it runs once, through
    the ledger, whatever the server says and whatever the tool; its outcome is recorded; nothing is unknown."""
    __tracebackhide__ = True
    charge = {"customer": "cus_demo", "amount": 4200}
    for label, cp, made, down in (
            ("情况 S4，但台账文件还不存在（存档点 A 之后、第一条 intent 落盘之前崩溃），邮件服务器也连不上",
             load_situation("S4")[0], False, True),
            ("情况 S4，但台账是个空文件，悬空的是 charge_card（没有幂等键保护，服务端也查不了）",
             _with_pending("cpC", "charge_card", charge), True, False)):
        call_id, name = cp["pendingToolUse"]["id"], cp["pendingToolUse"]["name"]
        ledger = _scratch("check-reconcile-") / "ledger.jsonl"
        if made:
            ledger.write_bytes(b"")
        spy, events = _ToolSpy(ledger, outputs={"charge_card": "已从 cus_demo 的卡上扣款 42.00 元，流水号 ch_7731"}), _DiskEvents()
        with MailServer() as mail, standing_in(namespace, "execute_tool", spy), \
                standing_in(namespace, "lookup_effect", course_lookup_effect), \
                standing_in(namespace, "save_checkpoint", lambda state, *args, **kwargs: saves.append(state)), \
                events.watching(reconcile):
            if down:
                mail.stop()
            block = _reconcile_once(reconcile, cp, ledger, label)
        ran = [c for c in spy.calls if c["name"] == name]
        expect(len(ran) == 1,
               f"{label}：台账里没有这次调用的 intent，说明它从没开始（意图总在执行之前落盘），应该经 execute_with_ledger "
               f"执行一次，不管服务器通不通、工具有没有幂等键；你的 reconcile "
               + (f"执行了 {len(ran)} 次 {name}" if ran else "没有执行它" + ("，却补了 is_error「结果未知」：is_error 只留给"
                                                                     "「有 intent、服务端答不上来」" if block.get("is_error") else ""))
               + "。")
        expect(not block.get("is_error") or str(ran[0]["output"]).startswith("错误"),  # a failure may be flagged
               f"{label}：执行的结果是确定的（{short(ran[0]['output'], 40)}），tool_result 不应该标 is_error。")
        expect(_of(ran[0]["ledger"], call_id, "intent"),
               f"{label}：{name} 执行的那一刻台账里还没有它的 intent：没有台账也要经 execute_with_ledger 执行（先记 intent 再执行），"
               "这次执行途中再崩溃，下次恢复才知道它开始过。")
        expect(carries_output(block.get("content"), ran[0]["output"]),
               f"{label}：tool_result 要带着这次执行返回的文本（整段，前后加几句话可以）。")
        outcomes = _of(read_ledger(ledger), call_id, "outcome")
        expect(len(outcomes) == 1 and outcomes[0].get("output") == ran[0]["output"],
               f"{label}：执行之后要追加一条 outcome，output 就是 execute_tool 返回的文本"
               + ("（服务器连不上时它是一段错误文本，这也是确定的结果）" if down else "") + "。")
        if not made:
            expect(("fsync", "folder") in events.events,
                   f"{label}：台账是这次对账时新建的，却没有 fsync 它所在的文件夹：断电后新台账连同 intent 一起不见，下次恢复"
                   "又会执行一次。不要先用 touch 或 open 建一个空台账：交给 append_ledger 去建，它看到文件是新建的就会 fsync 文件夹。")


def _check_damaged_ledger(reconcile, namespace: dict, saves: list) -> None:
    """S3's ledger with a line in the middle that is no record (an append a crash cut short, the next one glued onto
    it): the file is broken, so read_ledger's ValueError must reach the caller; nothing runs, the file stays as is."""
    __tracebackhide__ = True
    cp, records, _ = load_situation("S3")
    label = "情况 S3，但台账中间有一行不是完整的记录"
    cut, glued = (records_for(dict(EMAIL_CALL, id="toolu_01" + letter * 22), ("intent",)) for letter in "HJ")
    text = ledger_text(records_for(dict(EMAIL_CALL, id="toolu_01" + "T" * 22), ("intent", "outcome"))) \
        + ledger_text(cut)[:40] + ledger_text(glued + records)
    ledger = _scratch("check-reconcile-") / "ledger.jsonl"
    ledger.write_text(text, encoding="utf-8")
    spy, raised, returned = _ToolSpy(), False, None  # no ledger read for the spy: it is broken
    with MailServer() as mail, standing_in(namespace, "execute_tool", spy), \
            standing_in(namespace, "lookup_effect", course_lookup_effect), \
            standing_in(namespace, "save_checkpoint", lambda state, *args, **kwargs: saves.append(state)):
        try:
            returned = reconcile(cp, ledger)
        except ValueError:
            raised = True
        except NotImplementedError:
            fail(f"reconcile（{label}）还没有写完（仍然是 raise NotImplementedError）：先完成它的答题单元格并运行。")
        except Exception as exc:
            fail(f"{label}：read_ledger 读它会抛出 ValueError，reconcile 应该让它原样抛出去；你的代码抛出了 "
                 f"{type(exc).__name__}（{short(str(exc), 120)}）。")
        delivered = mail.count()
    expect(not spy.names() and not delivered,
           f"{label}：台账读不出来，reconcile 却执行了 {spy.names() or ['send_email']}：坏了的台账不等于没有记录，"
           "当成空台账（或者跳过读不出来的行），做过的调用就会再做一次。")
    expect(raised, f"{label}：台账读不出来，reconcile 应该让 read_ledger 的 ValueError 抛出去、等人来看"
                   f"（和第 3 课读不出来的检查点一样），你的函数却返回了 {short(returned)}。")
    expect(ledger.read_text(encoding="utf-8") == text, f"{label}：台账读不出来时不能改动它：坏文件要原样留着等人来看。")


# --- the incident, replayed in this process ----------------------------------------------------

@leaves_no_scratch
def check_incident_fix(namespace: dict) -> None:
    """The incident's state: intent in the ledger, the email delivered, no outcome; resume with your code."""
    __tracebackhide__ = True
    _needs(namespace, "save_checkpoint", "run_agent", "reconcile")
    folder = _scratch("check-incident-")
    path, incident = folder / "checkpoint.json", load_sample("cpC")
    _prepare(namespace, incident, path)
    pending = incident["pendingToolUse"]
    ledger_path(path).write_text(json.dumps(records_for(pending, ("intent",))[0], ensure_ascii=False) + "\n",
                                 encoding="utf-8")
    with MailServer() as mail:
        course_execute_tool("send_email", pending["input"], idempotency_key=pending["id"])  # delivered, then the crash
        final = call("run_agent", namespace["run_agent"], incident["task"], client=make_client(offline=True), path=path)
        delivered = mail.count()
    answered = [b for m in final["messages"] if isinstance(m.get("content"), list) for b in m["content"]
                if b.get("type") == "tool_result" and b.get("tool_use_id") == pending["id"]]
    expect(delivered == 1, f"重演事故后邮件服务器一共收到 {delivered} 封（崩溃前已经送达 1 封），应该正好 1 封。")
    expect(len(answered) == 1 and answered[0].get("is_error") is not True,
           "悬空的 send_email 得到的是 is_error：服务器明明答得上来（信已送达），结果应该是确定的。")
    expect(carries_output(answered[0].get("content"), delivered_text(pending)),
           "悬空的 send_email 的结果应该是服务器的回答：按幂等键查到的那段文本（或带同一把键重发时服务器说的「已经送达」）。")
    print(PASSED, "邮件只发了一封，而且结果是确定的")
