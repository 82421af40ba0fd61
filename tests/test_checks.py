"""The notebook's visible checks (course.checks): each typical mistake fails with its Chinese hint,
and correct answers written in other styles pass."""
import os
import sys
import tempfile
import textwrap

import pytest

from autograder.notebook_code import SOURCE_NOTEBOOK, definition_cells, load_module
from course import checks
from course.checks import CheckFailed


@pytest.fixture
def namespace():
    """A fresh notebook namespace with the reference solution defined in it (its functions look names up here)."""
    return vars(load_module(definition_cells(SOURCE_NOTEBOOK), "notebook"))


def define(namespace: dict, code: str) -> dict:
    """Run `code` (a student's version of some cells) in the notebook namespace."""
    exec(textwrap.dedent(code), namespace)
    return namespace


def fails_with(words: str, check, *args):
    with pytest.raises(CheckFailed) as caught:
        check(*args)
    assert words in str(caught.value), str(caught.value)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in str(caught.value))


# --- save / load ------------------------------------------------------------------------------

SAVE_WITHOUT_FSYNC = '''
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(state, file, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
'''


def test_the_reference_save_and_load_pass(namespace, capsys):
    checks.check_save_load(namespace["save_checkpoint"], namespace["load_checkpoint"])
    assert "✓" in capsys.readouterr().out


def test_a_check_leaves_no_folder_behind_passed_or_failed(namespace, monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where tempfile.mkdtemp makes the check's folders
    checks.check_save_load(namespace["save_checkpoint"], namespace["load_checkpoint"])
    checks.check_incident_fix(namespace)
    define(namespace, SAVE_WITHOUT_FSYNC)
    fails_with("一次 os.fsync 也没有调用", checks.check_save_load, namespace["save_checkpoint"], namespace["load_checkpoint"])
    assert list(tmp_path.iterdir()) == []


def test_no_fsync_at_all(namespace):
    define(namespace, SAVE_WITHOUT_FSYNC)
    fails_with("一次 os.fsync 也没有调用", checks.check_save_load, namespace["save_checkpoint"], namespace["load_checkpoint"])


def test_no_fsync_of_the_folder(namespace):
    define(namespace, SAVE_WITHOUT_FSYNC.replace(
        'json.dump(state, file, ensure_ascii=False)',
        'json.dump(state, file, ensure_ascii=False)\n            file.flush()\n            os.fsync(file.fileno())'))
    fails_with("改名之后没有 fsync 文件夹", checks.check_save_load,
               namespace["save_checkpoint"], namespace["load_checkpoint"])


def test_writing_the_target_directly(namespace):
    define(namespace, '''
        def save_checkpoint(state, path=CHECKPOINT_PATH):
            with open(path, "w", encoding="utf-8") as file:
                json.dump(state, file)
                file.flush()
                os.fsync(file.fileno())
    ''')
    fails_with("没有把临时文件改名", checks.check_save_load, namespace["save_checkpoint"], namespace["load_checkpoint"])


def test_load_returning_none_for_a_broken_file(namespace):
    define(namespace, '''
        def load_checkpoint(path=CHECKPOINT_PATH):
            try:
                return json.loads(Path(path).read_text(encoding="utf-8"))
            except (FileNotFoundError, ValueError):
                return None
    ''')
    fails_with("应该抛 ValueError", checks.check_save_load, namespace["save_checkpoint"], namespace["load_checkpoint"])


def test_a_version_message_must_name_the_version_whatever_the_folder_is_called(namespace, monkeypatch, tmp_path):
    def scratch(prefix):  # digits in the path say nothing about the message
        folder = tmp_path / f"{prefix}run-7-v1"
        folder.mkdir()
        return folder

    monkeypatch.setattr(checks, "_scratch", scratch)
    define(namespace, '''
        _good_load = load_checkpoint
        def load_checkpoint(path=CHECKPOINT_PATH):
            try:
                return _good_load(path)
            except ValueError as exc:
                if "版本" in str(exc):
                    raise ValueError(f"检查点 {path} 的版本不对") from None
                raise
    ''')
    fails_with("同时写出文件里的版本", checks.check_save_load, namespace["save_checkpoint"], namespace["load_checkpoint"])


def save_with(namespace, old: str, new: str, *more: tuple) -> dict:
    """The reference save_checkpoint / load_checkpoint with one line changed (and `more` (old, new) pairs)."""
    source = next(c.source for c in definition_cells(SOURCE_NOTEBOOK)
                  if c.metadata.get("nbgrader", {}).get("grade_id") == "save_load")
    for old, new in ((old, new), *more):
        assert old in source, old
        source = source.replace(old, new)
    return define(namespace, source)


def check_save(namespace):
    checks.check_save_load(namespace["save_checkpoint"], namespace["load_checkpoint"])


def test_writing_after_the_fsync(namespace):
    """json.dump into an unflushed buffer, fsync, and the rest reaches the file only when it is closed."""
    save_with(namespace, "            tmp.flush()  # Python 自己缓冲区里的内容先交给操作系统\n", "")
    fails_with("先 flush，再 fsync", check_save, namespace)


def test_a_temporary_file_in_another_folder(namespace):
    save_with(namespace, "tempfile.mkstemp(dir=path.parent,", "tempfile.mkstemp(dir=tempfile.mkdtemp(),")
    fails_with("目标文件所在的文件夹", check_save, namespace)


def test_a_failed_save_swallowed(namespace):
    save_with(namespace, "        Path(tmp_path).unlink(missing_ok=True)\n        raise", "        Path(tmp_path).unlink(missing_ok=True)\n        return")
    fails_with("正常返回了", check_save, namespace)


SAVE_DEF = "def save_checkpoint(state, path=CHECKPOINT_PATH):"
RENAME = "os.replace(tmp_path, path)"


@pytest.mark.parametrize("changes", [
    [(RENAME, "os.replace(os.fsencode(tmp_path), os.fsencode(path))"),  # bytes paths
     ("Path(tmp_path).unlink(missing_ok=True)", "os.remove(os.fsencode(tmp_path))")],
    [(RENAME, "here = os.open(path.parent, os.O_RDONLY)\n        os.replace(os.path.basename(tmp_path), path.name, "
              "src_dir_fd=here, dst_dir_fd=here)\n        os.close(here)")],  # renameat, names in the folder's fd
    [(SAVE_DEF, SAVE_DEF[:-2] + ", *, _sync=os.fsync):"), ("os.fsync(tmp.fileno())", "_sync(tmp.fileno())")],
    [(SAVE_DEF, SAVE_DEF[:-2] + ", move=os.replace):"), (RENAME, "move(tmp_path, path)")],
], ids=["bytes", "dir_fd", "keyword_default", "default"])
def test_a_save_naming_files_or_os_functions_its_own_way_passes(namespace, changes):
    save_with(namespace, *changes[0], *changes[1:])
    check_save(namespace)


def test_a_temporary_file_renamed_out_of_another_folders_descriptor(namespace):
    """The message names no folder it cannot know: the name was found in a folder only a descriptor named."""
    save_with(namespace, "tempfile.mkstemp(dir=path.parent,", "tempfile.mkstemp(dir=tempfile.mkdtemp(),",
              (RENAME, "there = os.open(os.path.dirname(tmp_path), os.O_RDONLY)\n        here = os.open(path.parent, "
                       "os.O_RDONLY)\n        os.replace(os.path.basename(tmp_path), path.name, src_dir_fd=there, "
                       "dst_dir_fd=here)\n        os.close(there)\n        os.close(here)"))
    fails_with("临时文件在 src_dir_fd 指向的另一个文件夹 里", check_save, namespace)


def test_a_module_imported_during_the_check_is_watched_and_given_os_back(namespace, tmp_path, monkeypatch):
    """save_checkpoint imports the student's module the first time it runs, inside the check's watch: the module
    takes the stand-ins with `from os import`, and holds os's own functions again once the check is over."""
    (tmp_path / "durable_bits.py").write_text("from os import fsync, replace\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    save_with(namespace, "    path = Path(path)\n    fd,", "    import durable_bits\n    path = Path(path)\n    fd,",
              ("os.fsync(tmp.fileno())", "durable_bits.fsync(tmp.fileno())"),
              (RENAME, "durable_bits.replace(tmp_path, path)"))
    try:
        check_save(namespace)
        assert (sys.modules["durable_bits"].fsync, sys.modules["durable_bits"].replace) == (os.fsync, os.replace)
        check_save(namespace)  # imported before the watch now
    finally:
        sys.modules.pop("durable_bits", None)


@pytest.mark.parametrize("old, new, words", [
    ('    version = state.get("version") if isinstance(state, dict) else None', '    version = state.get("version")',
     "不是一个对象"),
    ('state.get("version") if', 'state.get("version", CHECKPOINT_VERSION) if', "没有 version"),
    ('f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}"',
     'f"checkpoint {path}: version {version}, expected {CHECKPOINT_VERSION}"', "中文"),
])
def test_each_row_of_the_load_table(namespace, old, new, words):
    save_with(namespace, old, new)
    fails_with(words, check_save, namespace)


@pytest.fixture
def like_windows(monkeypatch):
    """os.name is "nt", a folder cannot be opened and os.sync is missing, as on Windows (as tests/test_platforms.py's
    Windows, it keeps os.pwritev); pathlib still makes POSIX paths."""
    import os
    import pathlib
    real_open = os.open

    def open_(path, flags, *args, **kwargs):
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(pathlib, "WindowsPath", pathlib.PosixPath)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.delattr(os, "sync")


def test_an_unreadable_file_taken_for_a_missing_one(namespace):
    save_with(namespace, "    except FileNotFoundError:\n        return None",
              "    except (FileNotFoundError, PermissionError):\n        return None")
    fails_with("没有读权限时，load_checkpoint 返回了", check_save, namespace)


def test_an_unreadable_file_reported_as_a_broken_one(namespace):
    save_with(namespace, "    except FileNotFoundError:\n        return None",
              "    except FileNotFoundError:\n        return None\n    except PermissionError as exc:\n"
              "        raise ValueError(f\"检查点 {path} 读不了\") from exc")
    fails_with("PermissionError（OSError 的一种）原样抛出去", check_save, namespace)


def test_no_folder_fsync_is_rejected_off_windows(namespace):
    save_with(namespace, 'if os.name != "nt":', "if False:")
    fails_with("改名之后没有 fsync 文件夹", check_save, namespace)


def test_on_windows_the_reference_passes_without_a_folder_fsync(namespace, like_windows, capsys):
    check_save(namespace)
    assert "Windows" in capsys.readouterr().out


def test_on_windows_opening_the_folder_fails_and_is_explained(namespace, like_windows):
    save_with(namespace, 'if os.name != "nt":', "if True:")
    fails_with("没有权限打开", check_save, namespace)


def test_save_written_another_way_passes(namespace):
    define(namespace, '''
        def save_checkpoint(state, path=CHECKPOINT_PATH):
            path = Path(path)
            tmp = path.with_name(path.name + ".partial")
            try:
                with open(tmp, "w", encoding="utf-8") as file:
                    file.write(json.dumps(state, ensure_ascii=False))
                    file.flush()
                    os.fdatasync(file.fileno())
                tmp.rename(path)
            except Exception:
                tmp.unlink(missing_ok=True)
                raise
            folder = os.open(path.parent, os.O_DIRECTORY)
            os.fsync(folder)
            os.close(folder)

        def load_checkpoint(path=CHECKPOINT_PATH):
            if not os.path.exists(path):
                return None
            try:
                with open(path, encoding="utf-8") as file:
                    data = json.load(file)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"读不出 {path}") from exc
            if not isinstance(data, dict) or data.get("version") != CHECKPOINT_VERSION:
                found = data.get("version") if isinstance(data, dict) else "（不是对象）"
                raise ValueError(f"{path}：文件版本 {found}，需要版本 {CHECKPOINT_VERSION}")
            return data
    ''')
    checks.check_save_load(namespace["save_checkpoint"], namespace["load_checkpoint"])


# --- run_agent --------------------------------------------------------------------------------

def run_agent_with(namespace, old: str, new: str) -> dict:
    """The reference run_agent with one line changed."""
    source = next(c.source for c in definition_cells(SOURCE_NOTEBOOK)
                  if c.metadata.get("nbgrader", {}).get("grade_id") == "run_agent")
    assert old in source, old
    return define(namespace, source.replace(old, new))


def test_the_reference_run_agent_passes_without_a_reconcile_of_its_own(namespace, capsys):
    namespace.pop("reconcile")  # section 3 comes before reconcile is written
    checks.check_run_agent(namespace["run_agent"], namespace)
    assert "✓" in capsys.readouterr().out
    assert "reconcile" not in namespace  # the stand-in is taken away again


def test_resuming_without_reconciling(namespace):
    run_agent_with(namespace, "state = reconcile(state)", "pass")
    fails_with("没有调用 reconcile", checks.check_run_agent, namespace["run_agent"], namespace)


def test_no_save_at_point_b(namespace):
    run_agent_with(namespace, "        save_checkpoint(state, path)  # 存档点 B\n", "")
    fails_with("没有在存档点 B 存档", checks.check_run_agent, namespace["run_agent"], namespace)


def test_tokens_summed(namespace):
    run_agent_with(namespace, 'state["tokensUsed"] = ', 'state["tokensUsed"] += ')
    fails_with("不是历次响应的累加", checks.check_run_agent, namespace["run_agent"], namespace)


def test_turns_reset_on_resume(namespace):
    run_agent_with(namespace, "    while state[\"turns\"] < MAX_TURNS:", "    state[\"turns\"] = 0\n    while state[\"turns\"] < MAX_TURNS:")
    fails_with("接着数", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_model_error_swallowed(namespace):
    run_agent_with(namespace, "        response = client.messages.create(messages=state[\"messages\"], **request_params())\n",
                   "        try:\n"
                   "            response = client.messages.create(messages=state[\"messages\"], **request_params())\n"
                   "        except Exception:\n"
                   "            return state\n")
    fails_with("你的 run_agent 却正常返回了", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_load_that_reads_a_first_part_only(namespace):
    save_with(namespace, 'text = path.read_text(encoding="utf-8")',
              'text = path.read_bytes()[:65536].decode("utf-8", errors="ignore")')
    fails_with("合法的检查点多大都要整个读出来", checks.check_save_load, namespace["save_checkpoint"],
               namespace["load_checkpoint"])


def test_reinitialising_on_resume(namespace):
    run_agent_with(namespace, "    if state is None:", "    if True:")
    fails_with("重新初始化了 messages", checks.check_run_agent, namespace["run_agent"], namespace)


def test_reconciling_when_nothing_is_pending(namespace):
    run_agent_with(namespace, '    elif state["pendingToolUse"] is not None:', '    elif True:')
    fails_with("没有悬空调用时也调用了 reconcile", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_finished_task_resumed_again(namespace):
    run_agent_with(namespace, "        return state  # 停在最后一轮的存档点 A：任务已经做完", "        pass")
    fails_with("已经做完的任务", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_failed_tool_without_is_error(namespace):
    run_agent_with(namespace, '"is_error": output.startswith("错误")}', "}")
    fails_with("要带 is_error: True", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_loop_that_decides_by_the_stop_reason(namespace):
    run_agent_with(namespace, "        if tool_use is None:\n            break",
                   "        if response.stop_reason != \"tool_use\":\n            break")
    fails_with("不能只看 stop_reason", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_loop_that_ends_only_on_end_turn(namespace):
    run_agent_with(namespace, 'tool_use = next((block for block in response.content if block.type == "tool_use"), None)',
                   'tool_use = None if response.stop_reason == "end_turn" else '
                   'next(block for block in response.content if block.type == "tool_use")')
    fails_with("回复里有工具调用（tool_use），run_agent 就要执行它", checks.check_run_agent, namespace["run_agent"],
               namespace)


def test_a_failed_tool_flagged_as_a_string(namespace):
    run_agent_with(namespace, '"is_error": output.startswith("错误")}', '"is_error": str(output.startswith("错误"))}')
    fails_with("is_error", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_400_the_students_own_message_shape_causes_is_not_blamed_on_reconcile(namespace):
    run_agent_with(namespace, 'state["messages"].append({"role": "user", "content": [result]})',
                   'state["messages"].append({"role": "user", "content": [{"type": "text", "text": "继续"}, result]})')
    with pytest.raises(CheckFailed) as caught:
        checks.check_run_agent(namespace["run_agent"], namespace)
    assert "最前面" in str(caught.value) and "reconcile" not in str(caught.value), str(caught.value)


def test_a_save_that_fails_while_the_check_prepares_is_explained(namespace):
    define(namespace, '''
        def save_checkpoint(state, path=CHECKPOINT_PATH):
            open(Path(path).parent / "no-such-folder" / "x.json", "w")
    ''')
    fails_with("准备检查点时调用的 save_checkpoint", checks.check_run_agent, namespace["run_agent"], namespace)


def test_a_task_given_as_a_text_block_passes(namespace):
    run_agent_with(namespace, '"messages": [{"role": "user", "content": task}]',
                   '"messages": [{"role": "user", "content": [{"type": "text", "text": task}]}]')
    checks.check_run_agent(namespace["run_agent"], namespace)


def test_a_save_to_the_default_file_is_named_as_such(namespace, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the default checkpoint.json lands here
    run_agent_with(namespace, "        save_checkpoint(state, path)  # 存档点 A", "        save_checkpoint(state)  # 存档点 A")
    fails_with("没有传 path", checks.check_run_agent, namespace["run_agent"], namespace)


RESOLVES_PATH = ("    client = client or make_client()\n",
                 "    client = client or make_client()\n    path = Path(path).resolve()\n")


@pytest.mark.parametrize("resolves", [False, True], ids=["as_given", "resolved"])
def test_a_temporary_folder_behind_a_symlink(namespace, temp_behind_a_symlink, resolves):
    """The check's folders are reached through a symlink: a run_agent that resolves its path names the same file."""
    if resolves:
        run_agent_with(namespace, *RESOLVES_PATH)
    check_save(namespace)
    checks.check_run_agent(namespace["run_agent"], namespace)
    assert list(temp_behind_a_symlink.iterdir()) == []


def test_max_turns_not_counted_across_restarts(namespace):
    run_agent_with(namespace, 'while state["turns"] < MAX_TURNS:', 'while state["turns"] <= MAX_TURNS:')
    fails_with("跨重启累计", checks.check_run_agent, namespace["run_agent"], namespace)


def test_run_agent_written_another_way_passes(namespace):
    define(namespace, '''
        def run_agent(task, client=None, path=CHECKPOINT_PATH):
            client = client if client is not None else make_client()
            state = load_checkpoint(path) or {"version": CHECKPOINT_VERSION, "task": task, "turns": 0,
                                              "tokensUsed": 0, "messages": [{"role": "user", "content": task}],
                                              "pendingToolUse": None}
            if state["pendingToolUse"]:
                state = reconcile(state)
                save_checkpoint(state, path)
            elif state["messages"][-1]["role"] == "assistant":
                return state
            while True:
                if state["turns"] >= MAX_TURNS:
                    return state
                state["turns"] = state["turns"] + 1
                reply = client.messages.create(messages=state["messages"], **request_params())
                usage = reply.usage
                state["tokensUsed"] = usage.output_tokens + usage.input_tokens
                state["messages"].append(assistant_message(reply))
                uses = [b for b in reply.content if b.type == "tool_use"]
                state["pendingToolUse"] = dict(id=uses[0].id, name=uses[0].name, input=uses[0].input) if uses else None
                save_checkpoint(state, path)
                if not uses:
                    return state
                text = execute_tool(uses[0].name, uses[0].input)
                blocks = [{"type": "text", "text": text}] if text else text  # the API refuses an empty text block
                result = {"type": "tool_result", "tool_use_id": uses[0].id, "content": blocks}
                if text.startswith("错误"):
                    result["is_error"] = True
                state["messages"].append({"role": "user", "content": [result]})
                state["pendingToolUse"] = None
                save_checkpoint(state, path)
    ''')
    checks.check_run_agent(namespace["run_agent"], namespace)


def test_an_empty_output_wrapped_as_a_text_block_gets_the_apis_400(namespace):
    """An empty file or folder read, wrapped as [{"type": "text", "text": ""}]: the API refuses an empty text block."""
    run_agent_with(namespace, '"content": output,', '"content": [{"type": "text", "text": output}],')
    fails_with("空的文字块", checks.check_run_agent, namespace["run_agent"], namespace)


# --- reconcile --------------------------------------------------------------------------------

def test_the_reference_reconcile_passes(namespace):
    checks.check_reconcile(namespace["reconcile"], namespace)


def test_reconcile_returning_nothing(namespace):
    define(namespace, '''
        _good = reconcile
        def reconcile(cp):
            _good(cp)
    ''')
    fails_with("返回了 None", checks.check_reconcile, namespace["reconcile"], namespace)


def test_the_incidents_reconcile(namespace):
    define(namespace, "reconcile = incident_reconcile")
    fails_with("send_email，你的 reconcile 又执行了它", checks.check_reconcile, namespace["reconcile"], namespace)


def test_a_deny_list_of_send_email(namespace):
    define(namespace, '''
        def reconcile(cp):
            pending = cp["pendingToolUse"]
            if pending["name"] == "send_email":
                result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True, "content": "未知"}
            else:
                result = {"type": "tool_result", "tool_use_id": pending["id"],
                          "content": execute_tool(pending["name"], pending["input"])}
            cp["messages"].append({"role": "user", "content": [result]})
            cp["pendingToolUse"] = None
            return cp
    ''')
    fails_with("delete_branch 被重新执行了", checks.check_reconcile, namespace["reconcile"], namespace)


def test_is_error_as_a_string(namespace):
    define(namespace, '''
        _good = reconcile
        def reconcile(cp):
            cp = _good(cp)
            block = cp["messages"][-1]["content"][0]
            if block.get("is_error") is True:
                block["is_error"] = "true"
            return cp
    ''')
    fails_with("布尔值 True", checks.check_reconcile, namespace["reconcile"], namespace)


def test_deleting_the_assistant_message(namespace):
    define(namespace, '''
        def reconcile(cp):
            cp["messages"].pop()
            cp["pendingToolUse"] = None
            return cp
    ''')
    fails_with("assistant 消息", checks.check_reconcile, namespace["reconcile"], namespace)


def test_reconcile_that_counts_a_turn(namespace):
    define(namespace, """
        _good = reconcile
        def reconcile(cp):
            cp["turns"] += 1
            return _good(cp)
    """)
    fails_with("改动了 turns", checks.check_reconcile, namespace["reconcile"], namespace)


def test_a_result_inserted_before_the_assistant_message(namespace):
    define(namespace, """
        _good = reconcile
        def reconcile(cp):
            cp = _good(cp)
            cp["messages"].insert(-1, cp["messages"].pop())
            return cp
    """)
    with pytest.raises(CheckFailed) as caught:
        checks.check_reconcile(namespace["reconcile"], namespace)
    assert "追加在 messages 的末尾" in str(caught.value) and "不见了" not in str(caught.value)


def test_a_lookup_of_an_unheard_of_tool_is_explained(namespace):
    define(namespace, """
        KIND = {"read_file": "rerun", "grep": "rerun", "list_dir": "rerun", "web_search": "rerun",
                "list_sent_emails": "rerun", "send_email": "is_error"}
        _good = reconcile
        def reconcile(cp):
            KIND[cp["pendingToolUse"]["name"]]
            return _good(cp)
    """)
    fails_with("这个字典里没有这个键", checks.check_reconcile, namespace["reconcile"], namespace)


def test_a_failed_rerun_without_is_error(namespace):
    define(namespace, '''
        def reconcile(cp):
            pending = cp["pendingToolUse"]
            if pending["name"] in READ_ONLY_TOOLS:
                result = {"type": "tool_result", "tool_use_id": pending["id"],
                          "content": execute_tool(pending["name"], pending["input"])}
            else:
                result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True, "content": "结果未知。"}
            cp["messages"].append({"role": "user", "content": [result]})
            cp["pendingToolUse"] = None
            return cp
    ''')
    fails_with("重新执行失败了", checks.check_reconcile, namespace["reconcile"], namespace)


def test_reconcile_written_another_way_passes(namespace):
    define(namespace, '''
        def reconcile(cp):
            pending = cp["pendingToolUse"]
            if pending["name"] in READ_ONLY_TOOLS:
                output = execute_tool(pending["name"], pending["input"])
                content, flag = [{"type": "text", "text": output or "（没有输出）"}], {"is_error": output.startswith("错误")}
            else:
                content, flag = [{"type": "text", "text": "结果未知：请先查证再决定。"}], {"is_error": True}
            new = dict(cp, pendingToolUse=None,
                       messages=cp["messages"] + [{"role": "user", "content": [
                           {"type": "tool_result", "tool_use_id": pending["id"], "content": content, **flag}]}])
            return new
    ''')
    checks.check_reconcile(namespace["reconcile"], namespace)


def test_a_reconcile_that_wraps_an_empty_output_as_a_text_block_is_refused(namespace):
    define(namespace, '''
        def reconcile(cp):
            pending = cp["pendingToolUse"]
            if pending["name"] in READ_ONLY_TOOLS:
                output = execute_tool(pending["name"], pending["input"])
                content, flag = [{"type": "text", "text": output}], {"is_error": output.startswith("错误")}
            else:
                content, flag = "结果未知：请先查证再决定。", {"is_error": True}
            cp["messages"].append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": pending["id"], "content": content, **flag}]})
            cp["pendingToolUse"] = None
            return cp
    ''')
    fails_with("空的文字块", checks.check_reconcile, namespace["reconcile"], namespace)


# --- recovery_action --------------------------------------------------------------------------

def test_the_reference_recovery_action_passes(namespace):
    checks.check_recovery_action(namespace["recovery_action"])


def test_recovery_action_rerunning_send_email():
    fails_with("会改变外部世界", checks.check_recovery_action,
               lambda cp: "continue" if cp["pendingToolUse"] is None else "rerun")


def test_recovery_action_erroring_read_file():
    fails_with("是只读工具", checks.check_recovery_action,
               lambda cp: "continue" if cp["pendingToolUse"] is None else "is_error")


def test_recovery_action_that_changes_the_checkpoint(namespace):
    def clears(cp):
        action = namespace["recovery_action"](cp)
        cp["pendingToolUse"] = None
        return action
    fails_with("不应该修改检查点", checks.check_recovery_action, clears)


def test_recovery_action_written_another_way_passes():
    def recovery_action(cp):
        call = cp.get("pendingToolUse")
        if not call:
            return "continue"
        return {"read_file": "rerun", "grep": "rerun", "list_dir": "rerun", "web_search": "rerun"}.get(
            call["name"], "is_error")
    checks.check_recovery_action(recovery_action)


# --- letters, the incident, errors in Chinese -------------------------------------------------

def test_a_letter_is_checked_for_its_form_only(capsys):
    checks.check_letter("QUIZ_DELETE_ANSWER", {"QUIZ_DELETE_ANSWER": " c "})
    assert "只检查格式" in capsys.readouterr().out
    fails_with("一个字母的字符串", checks.check_letter, "QUIZ_DELETE_ANSWER", {"QUIZ_DELETE_ANSWER": "C 和 D"})
    fails_with("还没有定义 QUIZ_DELETE_ANSWER", checks.check_letter, "QUIZ_DELETE_ANSWER", {})


def test_the_incident_check_counts_the_emails(namespace):
    checks.check_incident_fix(namespace)
    define(namespace, "reconcile = incident_reconcile")
    fails_with("收到 2 封", checks.check_incident_fix, namespace)


def test_the_incident_check_says_in_chinese_what_is_missing_or_unwritten(namespace):
    define(namespace, "def save_checkpoint(state, path):\n    raise NotImplementedError('请在这里写你的代码')")
    fails_with("save_checkpoint 还没有写完", checks.check_incident_fix, namespace)
    del namespace["run_agent"]
    fails_with("还没有定义 run_agent", checks.check_incident_fix, namespace)


def test_hints_in_chinese_for_errors_a_cell_can_raise():
    assert "还没写完" in checks.hint_for(NotImplementedError())
    assert "练习二" in checks.hint_for(NameError("name 'reconcile' is not defined", name="reconcile"))
    assert "从上往下" in checks.hint_for(NameError("name 'DEMO_DIR' is not defined", name="DEMO_DIR"))
    assert "traceback" in checks.hint_for(TypeError("'NoneType' object is not subscriptable"))


def test_a_failed_check_shows_only_its_message():
    shown = []

    class Shell:
        def _showtraceback(self, etype, value, stb):
            shown.append(stb)

    checks._show_in_chinese(Shell(), CheckFailed, CheckFailed("没有在存档点 B 存档"), None)
    assert shown == [["\x1b[1;31m可见检查没有通过：\x1b[0m没有在存档点 B 存档"]]


def test_an_error_in_the_students_code_shows_where_it_happened(namespace):
    from IPython.core.ultratb import AutoFormattedTB

    define(namespace, """
        def reconcile(cp):
            return cp["no such field"]
    """)
    with pytest.raises(CheckFailed) as caught:
        checks.check_reconcile(namespace["reconcile"], namespace)
    assert "KeyError" in str(caught.value) and isinstance(caught.value.__cause__, KeyError)
    shown = []

    class Shell:
        InteractiveTB = AutoFormattedTB(mode="Plain", theme_name="nocolor")

        def _showtraceback(self, etype, value, stb):
            shown.append(stb)

    checks._show_in_chinese(Shell(), CheckFailed, caught.value, None)
    text = "\n".join(shown[0])
    assert "in reconcile" in text and "checks.py" not in text  # the student's frame, not the check's
    assert text.rstrip().endswith(str(caught.value))


@pytest.mark.parametrize("said", ["messages.3.content.1: `tool_use` ids must be unique",
                                  "Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', "
                                  "'message': 'messages.3.content.1: `tool_use` ids must be unique'}}"])
def test_api_advice_names_where_in_the_api_s_words_or_the_sdk_s(said):
    """The advice says where the API found the problem, whether given its message or the SDK's whole error text."""
    advice = checks.api_advice(said)
    assert advice.startswith("messages.3.content.1：") and "出现了两次" in advice


def test_an_empty_or_blank_string_is_quoted_in_a_message():
    """Probe 17a: 「你的函数返回了 。」 for a function that returned "": an empty value read as nothing at all."""
    assert checks.short("") == '""'
    assert checks.short(" \n") == '" \\n"'
    assert checks.short("is_error") == "is_error"  # a word as it is (lesson 4's named mistakes quote it so)
    assert checks.short(" " * 200, limit=10) == '"' + " " * 8 + "…"
    said = checks.extra_fields_said({"": 1, "note": 2}, "检查点")
    assert '字段 ""、note：' in said
