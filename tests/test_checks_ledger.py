"""Lesson 4's visible checks (course.checks_ledger): the reference passes, each typical mistake fails with its hint."""
import tempfile
import textwrap

import pytest

from autograder.notebook_code import definition_cells, load_module
from course import checks_ledger as checks
from course.checks import CheckFailed
from autograder.lessons import lesson

LESSON4_NOTEBOOK = lesson("lesson04").source_notebook


@pytest.fixture
def namespace():
    """A fresh lesson-4 notebook namespace holding the reference solution (its functions look names up here)."""
    return vars(load_module(definition_cells(LESSON4_NOTEBOOK), "notebook04"))


def define(namespace: dict, code: str) -> dict:
    exec(textwrap.dedent(code), namespace)
    return namespace


def fails_with(words: str, check, *args):
    with pytest.raises(CheckFailed) as caught:
        check(*args)
    assert words in str(caught.value), str(caught.value)


def test_the_reference_passes_every_check(namespace, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the checks make their folders
    checks.check_lesson3_code(namespace["save_checkpoint"], namespace["load_checkpoint"],
                              namespace["lesson3_reconcile"], namespace)
    checks.check_effects(namespace["EFFECTS"])
    checks.check_append_ledger(namespace["append_ledger"])
    checks.check_execute_with_ledger(namespace["execute_with_ledger"], namespace)
    checks.check_run_agent(namespace["run_agent"], namespace)
    checks.check_recovery_action(namespace["recovery_action"])
    checks.check_reconcile(namespace["reconcile"], namespace)
    checks.check_incident_fix(namespace)
    assert list(tmp_path.iterdir()) == [], "a visible check left its folders behind"
    assert capsys.readouterr().out.count("✓") == 9  # lesson 3's two checks, then lesson 4's seven


def test_effects_calling_send_email_idempotent(namespace):
    fails_with("同样的参数发两次", checks.check_effects, {**namespace["EFFECTS"], "send_email": "idempotent"})
    fails_with("少了这些工具", checks.check_effects, {"send_email": "non_idempotent"})


APPEND_WITHOUT_FSYNC = '''
def append_ledger(path, record):
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\\n")
'''


def test_an_append_that_is_not_fsynced(namespace):
    define(namespace, APPEND_WITHOUT_FSYNC)
    fails_with("没有 fsync 台账文件", checks.check_append_ledger, namespace["append_ledger"])


def test_an_append_that_rewrites_the_ledger_atomically_passes(namespace, capsys):
    """The whole ledger written to a temporary file, fsynced and renamed into place: the hidden tests accept it."""
    define(namespace, '''
    def append_ledger(path, record):
        path = Path(path)
        old = path.read_bytes() if path.exists() else b""
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as out:
            out.write(old + (json.dumps(record, ensure_ascii=False) + "\\n").encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    ''')
    checks.check_append_ledger(namespace["append_ledger"])
    assert "✓" in capsys.readouterr().out


def test_an_append_that_overwrites(namespace):
    define(namespace, reference_source("append_ledger").replace('open(path, "a"', 'open(path, "w"'))
    fails_with("\"a\"（追加）", checks.check_append_ledger, namespace["append_ledger"])


def test_a_record_over_several_lines(namespace):
    define(namespace, reference_source("append_ledger").replace(
        "json.dumps(record, ensure_ascii=False)", "json.dumps(record, ensure_ascii=False, indent=2)"))
    fails_with("不要带 indent", checks.check_append_ledger, namespace["append_ledger"])


def test_an_append_that_swallows_a_failed_write(namespace):
    define(namespace, '''
    def append_ledger(path, record):
        try:
            with open(path, "a", encoding="utf-8") as ledger:
                ledger.write(json.dumps(record, ensure_ascii=False) + "\\n")
                ledger.flush()
                os.fsync(ledger.fileno())
            folder = os.open(Path(path).parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as exc:
            print("写不进去，跳过：", exc)
    ''')
    fails_with("不要用 try/except 把 OSError 吞掉", checks.check_append_ledger, namespace["append_ledger"])


def test_an_execution_that_runs_the_tool_when_the_intent_failed(namespace):
    define(namespace, '''
    def execute_with_ledger(call, ledger):
        if call["name"] in READ_ONLY_TOOLS:
            return execute_tool(call["name"], call["input"])
        try:
            append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"], "input": call["input"]})
        except OSError:
            pass
        output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
        try:
            append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
        except OSError:
            pass
        return output
    ''')
    fails_with("intent 追加不进去，execute_with_ledger 却照样执行了", checks.check_execute_with_ledger,
               namespace["execute_with_ledger"], namespace)


def test_an_execution_without_the_key(namespace):
    define(namespace, reference_source("execute_with_ledger").replace(
        ', idempotency_key=call["id"])', ")"))
    fails_with("要带上幂等键", checks.check_execute_with_ledger, namespace["execute_with_ledger"], namespace)


def test_the_intent_written_after_the_execution(namespace):
    define(namespace, '''
    def execute_with_ledger(call, ledger):
        if call["name"] in READ_ONLY_TOOLS:
            return execute_tool(call["name"], call["input"])
        output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
        append_ledger(ledger, {"type": "intent", "toolUseId": call["id"], "name": call["name"], "input": call["input"]})
        append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
        return output
    ''')
    fails_with("还没有它的 intent", checks.check_execute_with_ledger, namespace["execute_with_ledger"], namespace)


def test_run_agent_that_still_calls_execute_tool(namespace):
    define(namespace, reference_source("run_agent").replace(
        'execute_with_ledger(state["pendingToolUse"], ledger)', "execute_tool(tool_use.name, tool_use.input)"))
    fails_with("execute_with_ledger(call, ledger_path(path))", checks.check_run_agent, namespace["run_agent"], namespace)


def test_an_intent_without_outcome_taken_as_never_started(namespace):
    define(namespace, reference_source("recovery_action").replace(
        'if "intent" not in kinds:', "if True:"))
    fails_with("情况 S2：你返回了 'execute'", checks.check_recovery_action, namespace["recovery_action"])


def test_asking_the_server_before_reading_the_ledger_fails(namespace):
    """A lookup where the ledger already answers (an outcome recorded): the lesson's table reuses it without asking,
    and the hidden tests take the point off (wrong_recovery_asks_before_outcome); so does the check."""
    define(namespace, '''
    def recovery_action(cp, records, lookup):
        pending = cp["pendingToolUse"]
        if pending is None:
            return "continue"
        if pending["name"] in READ_ONLY_TOOLS:
            return "rerun"
        try:
            found, answered = lookup(pending["name"], pending["id"]), True
        except ServiceUnavailable:
            found, answered = None, False
        kinds = {r["type"] for r in records if r.get("toolUseId") == pending["id"]}
        if "outcome" in kinds:
            return "reuse"
        if "intent" not in kinds:
            return "execute"
        if not answered:
            return "is_error"
        return "execute" if found is None else "record"
    ''')
    fails_with("情况 S1：只在台账里只有 intent 时才问服务端", checks.check_recovery_action, namespace["recovery_action"])


def test_a_keyed_resend_without_asking_passes(namespace, capsys):
    """The lead's decision: an email sent again with the same key is recognised by the server, so it is correct."""
    define(namespace, VARIANT_KEYED_RESEND)
    checks.check_reconcile(namespace["reconcile"], namespace)
    assert "✓" in capsys.readouterr().out


def test_a_resend_with_a_new_key_fails(namespace):
    define(namespace, VARIANT_KEYED_RESEND.replace('idempotency_key=call["id"]', "idempotency_key=call[\"id\"] + \"-2\""))
    fails_with("情况 S2：对账之后邮件服务器一共有 2 封信", checks.check_reconcile, namespace["reconcile"], namespace)


VARIANT_KEYED_RESEND = '''
def reconcile(cp, ledger):
    call = cp["pendingToolUse"]
    mine = [r for r in read_ledger(ledger) if r.get("toolUseId") == call["id"]]
    block = {"type": "tool_result", "tool_use_id": call["id"]}
    if call["name"] in READ_ONLY_TOOLS:
        block["content"] = execute_tool(call["name"], call["input"])
    elif any(r["type"] == "outcome" for r in mine):
        block["content"] = [r for r in mine if r["type"] == "outcome"][-1]["output"]
    elif not mine:
        block["content"] = execute_with_ledger(call, ledger)
    else:
        output = execute_tool(call["name"], call["input"], idempotency_key=call["id"])
        if output.startswith("错误"):
            block["is_error"], block["content"] = True, f"结果未知：重发没有成功（{output}），请先确认。"
        else:
            append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": output})
            block["content"] = output
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
'''


def test_lesson3s_reconcile_is_not_enough(namespace):
    define(namespace, "reconcile = lambda cp, ledger: lesson3_reconcile(cp)")
    fails_with("情况 S1：结果是查得到的", checks.check_reconcile, namespace["reconcile"], namespace)


def test_a_reconcile_that_calls_no_ledger_unknown(namespace):
    """No ledger file yet means no intent was ever written: lesson 3's is_error there is the mistake."""
    define(namespace, '''
    ledger_reconcile = reconcile
    def reconcile(cp, ledger):
        return ledger_reconcile(cp, ledger) if Path(ledger).exists() else lesson3_reconcile(cp)
    ''')
    fails_with("台账文件还不存在", checks.check_reconcile, namespace["reconcile"], namespace)


def test_a_reconcile_that_makes_the_ledger_before_appending(namespace):
    """An empty ledger touched into being: append_ledger then sees no new file and never makes its name durable."""
    define(namespace, '''
    ledger_reconcile = reconcile
    def reconcile(cp, ledger):
        Path(ledger).touch()
        return ledger_reconcile(cp, ledger)
    ''')
    fails_with("没有 fsync 它所在的文件夹", checks.check_reconcile, namespace["reconcile"], namespace)


def test_the_incidents_reconcile_sends_again(namespace):
    fails_with("情况 S2：对账之后邮件服务器一共有 2 封信", checks.check_reconcile, namespace["incident_reconcile"],
               namespace)


def test_the_incident_fix_fails_for_the_incidents_reconcile(namespace):
    define(namespace, "reconcile = incident_reconcile")
    fails_with("一共收到 2 封", checks.check_incident_fix, namespace)


def reference_source(grade_id: str) -> str:
    """The reference source of one answer cell, without the solution markers."""
    cell = next(c for c in definition_cells(LESSON4_NOTEBOOK) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return "\n".join(line for line in cell.source.splitlines() if "### " not in line)


def test_an_append_in_another_style_passes(namespace, capsys):
    """os.open with O_APPEND and one os.write: a correct append that never calls open()."""
    define(namespace, '''
    def append_ledger(path, record):
        line = (json.dumps(record, ensure_ascii=False) + "\\n").encode("utf-8")
        existed = os.path.exists(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if not existed:
            folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    ''')
    checks.check_append_ledger(namespace["append_ledger"])
    assert "✓" in capsys.readouterr().out


def test_a_reconcile_in_another_style_passes(namespace, capsys):
    """No recovery_action, one look at the ledger per case, content as a list of text blocks (none when empty)."""
    define(namespace, '''
    def reconcile(cp, ledger):
        call = cp["pendingToolUse"]
        mine = [r for r in read_ledger(ledger) if r.get("toolUseId") == call["id"]]
        outcome = [r["output"] for r in mine if r["type"] == "outcome"]
        flag = False
        if call["name"] in READ_ONLY_TOOLS:
            text = execute_tool(call["name"], call["input"])
        elif outcome:
            text = outcome[-1]
        elif not mine:
            text = execute_with_ledger(call, ledger)
        else:
            try:
                text = lookup_effect(call["name"], call["id"])
            except ServiceUnavailable as err:
                text, flag = f"结果未知（{err}），请先确认。", True
            else:
                if text is None:
                    text = execute_with_ledger(call, ledger)
                else:
                    append_ledger(ledger, {"type": "outcome", "toolUseId": call["id"], "output": text})
        # an empty text block is refused by the API: an empty output goes as no blocks at all
        block = {"type": "tool_result", "tool_use_id": call["id"],
                 "content": [{"type": "text", "text": text}] if text else []}
        if flag:
            block["is_error"] = True
        cp["messages"].append({"role": "user", "content": [block]})
        cp["pendingToolUse"] = None
        return cp
    ''')
    checks.check_reconcile(namespace["reconcile"], namespace)
    assert "✓" in capsys.readouterr().out


NOTED_RECONCILE = '''
reference_reconcile = reconcile

def reconcile(cp, ledger):
    cp = reference_reconcile(cp, ledger)
    block = cp["messages"][-1]["content"][0]
    if not block.get("is_error"):
        block["content"] = "（对账补上的结果）\\n" + block["content"]
    return cp
'''


def test_words_around_the_output_pass(namespace, capsys):
    """The contract's one equivalence (course.checks.carries_output): a note before the output, on every path."""
    define(namespace, NOTED_RECONCILE)
    checks.check_reconcile(namespace["reconcile"], namespace)
    checks.check_incident_fix(namespace)
    assert capsys.readouterr().out.count("✓") == 2


def test_words_around_an_output_cut_short_fail(namespace):
    define(namespace, NOTED_RECONCILE.replace('+ block["content"]', '+ block["content"][:-1]'))
    fails_with("情况 S1：tool_result 要带着台账 outcome 里记的 output", checks.check_reconcile, namespace["reconcile"],
               namespace)


@pytest.mark.parametrize("resolves", [False, True], ids=["as_given", "resolved"])
def test_a_temporary_folder_behind_a_symlink(namespace, temp_behind_a_symlink, resolves):
    """The checks' folders are reached through a symlink: a run_agent that resolves its path names the same files."""
    if resolves:
        source = next(c.source for c in definition_cells(LESSON4_NOTEBOOK)
                      if c.metadata.get("nbgrader", {}).get("grade_id") == "run_agent")
        line = "    ledger = ledger_path(path)\n"
        assert line in source
        define(namespace, source.replace(line, "    path = Path(path).resolve()\n" + line))
    checks.check_append_ledger(namespace["append_ledger"])
    checks.check_run_agent(namespace["run_agent"], namespace)
    assert list(temp_behind_a_symlink.iterdir()) == []
