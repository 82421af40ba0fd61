"""The crash-state model (autograder.crash_states), on hand-written call records and on strace's own log."""
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from autograder import fs_trace
from autograder.crash_states import MAX_PREFIXES, FileSystem

W = "/w"
CP, TMP = "/w/cp.json", "/w/cp.json.tmp"
OLD, NEW = b'{"version": 1, "turns": 1}', b'{"version": 1, "turns": 2}'


def opened(path, fd, flags="O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC"):
    return {"op": "open", "path": path, "fd": fd, "flags": flags}


def write(path, fd, data, offset=None):
    return {"op": "write", "path": path, "fd": fd, "data": data, "size": len(data), "offset": offset}


def sync(path, fd, op="fsync"):
    return {"op": op, "path": path, "fd": fd}


def rename(source, target):
    return {"op": "rename", "path": source, "dst": target}


def close(path, fd):
    return {"op": "close", "path": path, "fd": fd}


def folder_sync(fd=4):
    return [opened(W, fd, "O_RDONLY|O_CLOEXEC"), sync(W, fd), close(W, fd)]


def durable_save(data=NEW, flags="O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", file_sync="fsync"):
    records = [opened(TMP, 3, flags), write(TMP, 3, data[:10]), write(TMP, 3, data[10:])]
    if file_sync:
        records.append(sync(TMP, 3, file_sync))
    return records + [close(TMP, 3), rename(TMP, CP), *folder_sync()]


def states_along(records, files=None, path=CP):
    """[power-cut states before any call, after the first, ...] and the file system at the end."""
    fs = FileSystem(files if files is not None else {CP: OLD})
    states = [fs.after_power_cut(path)]
    for record in records:
        fs.apply(record)
        states.append(fs.after_power_cut(path))
    return states, fs


@pytest.mark.parametrize("file_sync", ["fsync", "fdatasync"])
def test_a_durable_save_leaves_the_old_or_the_new_checkpoint_and_the_new_one_once_it_returns(file_sync):
    states, fs = states_along(durable_save(file_sync=file_sync))
    assert all(state <= {OLD, NEW} for state in states), states
    assert states[0] == {OLD} and states[-1] == {NEW}
    assert fs.content(CP) == NEW and fs.content(TMP) is None


def test_without_fsync_of_the_file_the_new_name_may_point_at_an_empty_or_half_file():
    states, _ = states_along(durable_save(file_sync=None))
    after_rename = states[-1]
    assert b"" in after_rename and NEW[:10] in after_rename and NEW in after_rename


def test_without_fsync_of_the_folder_the_rename_may_be_undone():
    records = durable_save()[:-3]  # no folder fsync
    states, _ = states_along(records)
    assert states[-1] == {OLD, NEW}


def test_fsync_of_a_new_file_does_not_make_its_name_durable():
    records = [opened(CP, 3), write(CP, 3, NEW), sync(CP, 3), close(CP, 3)]
    states, _ = states_along(records, files={})
    assert states[-1] == {None, NEW}
    states, _ = states_along(records + folder_sync(), files={})
    assert states[-1] == {NEW}


@pytest.mark.parametrize("flag", ["O_SYNC", "O_DSYNC"])
def test_writes_through_a_descriptor_opened_with_o_sync_are_durable_without_fsync(flag):
    states, _ = states_along(durable_save(flags=f"O_WRONLY|O_CREAT|O_TRUNC|{flag}|O_CLOEXEC", file_sync=None))
    assert all(state <= {OLD, NEW} for state in states) and states[-1] == {NEW}


def test_o_sync_is_not_trusted_once_the_file_also_has_a_writer_without_it():
    """dup2 (not traced) can put the plain descriptor where the O_DSYNC one was, and another process may have the same
    number: the writes are not taken as synced. A reader alongside changes nothing."""
    plain = [opened(TMP, 3, "O_WRONLY|O_CREAT|O_TRUNC|O_DSYNC"), opened(TMP, 5, "O_WRONLY"), write(TMP, 3, NEW),
             close(TMP, 5), close(TMP, 3), rename(TMP, CP), *folder_sync()]
    states, _ = states_along(plain)
    assert b"" in states[-1]
    reader = [opened(TMP, 3, "O_WRONLY|O_CREAT|O_TRUNC|O_DSYNC"), opened(TMP, 5, "O_RDONLY"), write(TMP, 3, NEW),
              close(TMP, 5), close(TMP, 3), rename(TMP, CP), *folder_sync()]
    states, _ = states_along(reader)
    assert states[-1] == {NEW}


def test_deleting_the_old_checkpoint_before_the_rename_can_leave_no_checkpoint():
    records = durable_save()
    records.insert(records.index(rename(TMP, CP)), {"op": "unlink", "path": CP})
    states, _ = states_along(records)
    assert any(None in state for state in states)
    assert states[-1] == {NEW}


def test_writing_the_checkpoint_in_place_can_leave_it_empty_or_cut_off():
    records = [opened(CP, 3), write(CP, 3, NEW), sync(CP, 3), close(CP, 3)]
    states, _ = states_along(records)
    assert {OLD, b"", NEW[:len(NEW) // 2]} <= states[2]  # after the write, before its fsync
    assert states[-1] == {NEW}


def test_sync_makes_every_file_and_every_name_durable():
    records = [opened(TMP, 3), write(TMP, 3, NEW), close(TMP, 3), rename(TMP, CP), {"op": "sync", "path": None}]
    states, _ = states_along(records)
    assert states[-2] != {NEW} and states[-1] == {NEW}


def test_many_pending_writes_give_a_bounded_number_of_states_from_none_to_all():
    chunks = [bytes([65 + i % 26]) * 3 for i in range(200)]
    fs = FileSystem({})
    fs.apply(opened(CP, 3))
    fs.apply(sync(CP, 3))
    fs.apply(sync(W, 5))
    for chunk in chunks:
        fs.apply(write(CP, 3, chunk))
    states = fs.after_power_cut(CP)
    assert b"" in states and b"".join(chunks) in states
    assert len(states) <= 2 * MAX_PREFIXES
    assert all(b"".join(chunks).startswith(state) for state in states)


def test_positions_follow_pwrite_lseek_o_append_and_truncate():
    fs = FileSystem({CP: b"0123456789"})
    fs.apply(opened(CP, 3, "O_RDWR"))
    fs.apply({"op": "seek", "path": CP, "fd": 3, "position": 4})
    fs.apply(write(CP, 3, b"ab"))
    fs.apply(write(CP, 3, b"cd"))
    fs.apply(write(CP, 3, b"Z", offset=0))
    assert fs.content(CP) == b"Z123abcd89"
    fs.apply({"op": "truncate", "path": CP, "fd": 3, "length": 3})
    fs.apply(opened(CP, 4, "O_WRONLY|O_APPEND"))
    fs.apply(write(CP, 4, b"!"))
    assert fs.content(CP) == b"Z12!"
    assert b"0123456789" in fs.after_power_cut(CP)


def test_a_write_to_a_file_whose_name_is_gone_changes_that_file_only():
    records = [opened(TMP, 3), {"op": "unlink", "path": TMP}, write(TMP + fs_trace.DELETED, 3, b"lost"), sync(TMP, 3)]
    states, fs = states_along(records)
    assert fs.content(CP) == OLD and states[-1] == {OLD}


def test_strace_marks_a_descriptor_whose_name_is_gone_apart_from_a_file_so_named():
    assert fs_trace.fd_path("3</work/cp.json.tmp>(deleted)") == "/work/cp.json.tmp" + fs_trace.DELETED
    assert fs_trace.fd_path("4</work/cp.json.tmp (deleted)>") == "/work/cp.json.tmp (deleted)"  # a name like any other


def test_an_o_dsync_file_named_like_a_deleted_one_is_another_file():
    """A decoy "tmp (deleted)" opened O_DSYNC at the number the temporary file had: the temporary file's writes,
    through that number after a dup2 strace does not see, are not synced."""
    decoy = TMP + " (deleted)"
    records = [opened(TMP, 3), {"op": "close", "path": TMP, "fd": 3}, opened(decoy, 3, "O_WRONLY|O_CREAT|O_DSYNC"),
               write(TMP, 3, NEW), rename(TMP, CP), sync(os.path.dirname(CP), 5)]
    states, _ = states_along(records)
    assert states[-1] - {OLD, NEW}, "a power cut can leave the new name on a file whose content is not on disk"


SAVE = textwrap.dedent('''
    import json, os, sys
    folder, flag = sys.argv[1], sys.argv[2]
    target = os.path.join(folder, "cp.json")
    data = json.dumps({"version": 1, "task": "整理纪要", "turns": 2}, ensure_ascii=False).encode()
    fd = os.open(target + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, flag), 0o600)
    os.write(fd, data[:7])
    os.writev(fd, [data[7:12], data[12:]])
    os.close(fd)
    os.replace(target + ".tmp", target)
    directory = os.open(folder, os.O_RDONLY)
    os.fsync(directory)
    os.close(directory)
''')


@pytest.mark.parametrize("flag", ["O_SYNC", "O_CLOEXEC"])
def test_strace_records_what_the_model_needs(tmp_path, flag):
    """A save run for real under the grader's strace options: the bytes, the flags and the order come through."""
    log, script = tmp_path / "trace.log", tmp_path / "save.py"
    script.write_text(SAVE, encoding="utf-8")
    folder = tmp_path / "work"
    folder.mkdir()
    command = [*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder), flag]
    subprocess.run(command, check=True, capture_output=True)
    records = fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder))
    expected = json.dumps({"version": 1, "task": "整理纪要", "turns": 2}, ensure_ascii=False).encode()
    assert [r["at"] for r in records] == sorted(r["at"] for r in records)
    assert b"".join(r["data"] for r in records if r["op"] == "write") == expected
    states, fs = states_along(records, files={}, path=str(folder / "cp.json"))
    assert fs.content(str(folder / "cp.json")) == expected
    if flag == "O_SYNC":  # durable without any fsync of the file
        assert all(state <= {None, expected} for state in states) and states[-1] == {expected}
    else:
        assert b"" in set().union(*states) and states[-1] != {expected}
    assert os.path.exists(folder / "cp.json")


CHDIR = textwrap.dedent('''
    import os, sys
    os.chdir(sys.argv[1])  # into the working folder, as the grader's driver does
    os.mkdir("runs")
    os.chdir("runs")
    open("cp.json", "w").close()
    os.chdir("/")
    os.chdir(sys.argv[1])
''')


def test_strace_records_the_student_s_changes_of_the_current_folder(tmp_path):
    """A chdir from the working folder is recorded (a save that leaves the process elsewhere sends every relative
    path elsewhere), with the folder it leads to, and every one after it, outside the folder too; the one into it
    from outside, as the driver's, is not."""
    log, script = tmp_path / "trace.log", tmp_path / "chdir.py"
    script.write_text(CHDIR, encoding="utf-8")
    folder = tmp_path / "work"
    folder.mkdir()
    subprocess.run([*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder)],
                   check=True, capture_output=True)
    records = fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder))
    assert [r["path"] for r in records if r["op"] == "chdir"] == [str(folder / "runs"), "/", str(folder)]
    assert [r["path"] for r in records if r["op"] == "open"] == [str(folder / "runs" / "cp.json")]


PWRITEV2_SAVE = textwrap.dedent('''
    import os, sys
    folder, flags = sys.argv[1], getattr(os, sys.argv[2], 0)
    target = os.path.join(folder, "cp.json")
    fd = os.open(target + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.pwritev(fd, [b'{"version": 1, ', b'"turns": 2}'], 0, flags)
    os.lseek(fd, 0, os.SEEK_END)
    os.pwritev(fd, [b"\\n"], -1, flags)  # at the file's position, as write
    os.close(fd)
    os.replace(target + ".tmp", target)
    directory = os.open(folder, os.O_RDONLY)
    os.fsync(directory)
    os.close(directory)
''')


@pytest.mark.parametrize("flag", ["RWF_DSYNC", "RWF_SYNC", "RWF_HIPRI"])
def test_a_pwritev2_with_a_per_write_sync_flag_is_durable_when_it_returns(tmp_path, flag):
    """pwritev2's RWF_DSYNC and RWF_SYNC are "a per-write equivalent of the O_DSYNC open(2) flag" (man pwritev2): such a
    write needs no fsync (corpus full_pwritev2_rwf_dsync); other flags make nothing durable."""
    log, script, folder = tmp_path / "trace.log", tmp_path / "save.py", tmp_path / "work"
    script.write_text(PWRITEV2_SAVE, encoding="utf-8")
    folder.mkdir()
    command = [*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder), flag]
    subprocess.run(command, check=True, capture_output=True)
    records = fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder))
    expected = b'{"version": 1, "turns": 2}\n'
    assert [(r["offset"], r["sync"]) for r in records if r["op"] == "write"] == [(0, flag != "RWF_HIPRI"),
                                                                                (None, flag != "RWF_HIPRI")]
    states, fs = states_along(records, files={}, path=str(folder / "cp.json"))
    assert fs.content(str(folder / "cp.json")) == expected
    if flag == "RWF_HIPRI":
        assert b"" in set().union(*states)
    else:
        assert all(state <= {None, expected} for state in states) and states[-1] == {expected}


TMPFILE_SAVE = textwrap.dedent('''
    import os, sys
    folder, fsync = sys.argv[1], sys.argv[2] == "fsync"
    fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    os.write(fd, b'{"version": 1, "turns": 2}')
    if fsync:
        os.fsync(fd)
    directory = os.open(folder, os.O_RDONLY)
    os.link(f"/proc/self/fd/{fd}", "cp.json.tmp", dst_dir_fd=directory, follow_symlinks=True)
    os.close(fd)
    os.replace(os.path.join(folder, "cp.json.tmp"), os.path.join(folder, "cp.json"))
    os.fsync(directory)
    os.close(directory)
''')


@pytest.mark.parametrize("fsync", ["fsync", "none"])
def test_an_o_tmpfile_linked_in_through_proc_self_fd_brings_its_content(tmp_path, fsync):
    """open(folder, O_TMPFILE), write, fsync, linkat("/proc/self/fd/N", ...), rename (man 2 open's example; corpus
    full_tmpfile_linkat): the name is given to the descriptor's file, durable as that file was made."""
    log, script, folder = tmp_path / "trace.log", tmp_path / "save.py", tmp_path / "work"
    script.write_text(TMPFILE_SAVE, encoding="utf-8")
    folder.mkdir()
    command = [*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder), fsync]
    subprocess.run(command, check=True, capture_output=True)
    records = fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder))
    expected = b'{"version": 1, "turns": 2}'
    states, fs = states_along(records, files={}, path=str(folder / "cp.json"))
    assert fs.content(str(folder / "cp.json")) == expected
    if fsync == "fsync":
        assert all(state <= {None, expected} for state in states) and states[-1] == {expected}
    else:
        assert b"" in set().union(*states)


FORGED_SYNC = textwrap.dedent('''
    import ctypes, os, sys
    folder, how = sys.argv[1], sys.argv[2]
    target = os.path.join(folder, "cp.json")
    fd = os.open(target + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, b'{"version": 1, "turns": 2}')
    if how == "dup2":  # the number now stands for another file: fsync of it syncs that one
        os.dup2(os.open(sys.argv[3], os.O_WRONLY | os.O_CREAT, 0o600), fd)
        os.fsync(fd)
    else:  # syncfs of another file system
        ctypes.CDLL(None, use_errno=True).syncfs(os.open(sys.argv[3], os.O_RDONLY))
    os.close(fd)
    os.replace(target + ".tmp", target)
    directory = os.open(folder, os.O_RDONLY)
    os.fsync(directory)
    os.close(directory)
''')


@pytest.mark.parametrize("how", ["dup2", "syncfs"])
def test_a_sync_of_another_file_or_file_system_does_not_make_the_save_durable(tmp_path, how):
    """dup2 and syncfs are not calls strace stops at: the model believes what strace says the descriptor is."""
    log, script = tmp_path / "trace.log", tmp_path / "save.py"
    script.write_text(FORGED_SYNC, encoding="utf-8")
    folder = tmp_path / "work"
    folder.mkdir()
    other = str(tmp_path / "junk") if how == "dup2" else "/dev/shm"
    command = [*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder), how, other]
    subprocess.run(command, check=True, capture_output=True)
    records = fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder), roots=(str(tmp_path),))
    states, fs = states_along(records, files={}, path=str(folder / "cp.json"))
    assert fs.content(str(folder / "cp.json")) == b'{"version": 1, "turns": 2}'
    assert b"" in states[-1], states[-1]  # the data may still be lost when the power goes


BYTEWISE_SAVE = textwrap.dedent('''
    import json, os, sys
    folder = sys.argv[1]
    target = os.path.join(folder, "cp.json")
    data = json.dumps({"version": 1, "messages": ["第 %d 条" % i for i in range(800)]}, ensure_ascii=False).encode()
    fd = os.open(target + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for i in range(len(data)):
        os.write(fd, data[i:i + 1])
    os.fsync(fd)
    os.close(fd)
    os.replace(target + ".tmp", target)
    directory = os.open(folder, os.O_RDONLY)
    os.fsync(directory)
    os.close(directory)
''')


def test_a_checkpoint_written_a_byte_at_a_time_is_one_write_and_its_save_stays_durable(tmp_path):
    """Thousands of one-byte writes in a row are one write to the model (a crash between them leaves a prefix,
    which it tries anyway): the calls after them, the rename and the folder's fsync, are not crowded out."""
    log, script, folder = tmp_path / "trace.log", tmp_path / "save.py", tmp_path / "work"
    script.write_text(BYTEWISE_SAVE, encoding="utf-8")
    folder.mkdir()
    subprocess.run([*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder)],
                   check=True, capture_output=True)
    records = fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder), roots=())
    expected = (folder / "cp.json").read_bytes()
    assert len(expected) > 5000 and len(records) < 12, [r["op"] for r in records]
    assert [r["data"] for r in records if r["op"] == "write"] == [expected]
    states, _ = states_along(records, files={}, path=str(folder / "cp.json"))
    assert all(state <= {None, expected} for state in states) and states[-1] == {expected}


def test_many_small_writes_in_a_row_are_merged_into_one_write_of_bytes_in_linear_time():
    """A cell writing 200 bytes at a time for seconds gives tens of thousands of calls: copying the merged data at
    each one made the grader spend minutes on one step (red team, tamper_trace_merge_quadratic)."""
    chunk, count = "x" * 200, 40_000
    lines = [(7, 'openat(AT_FDCWD</w>, "/w/big", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3</w/big>', 0.0)]
    lines += [(7, f'write(3</w/big>, "{chunk}", 200) = 200', 0.1)] * count
    lines += [(7, 'write(3</w/big>, "tail", 9) = 4', 0.2)]  # cut short: the merged write says so
    writes = [r for r in fs_trace.events(lines, 0, "/w") if r["op"] == "write"]
    assert len(writes) == 1 and type(writes[0]["data"]) is bytes
    assert writes[0]["data"] == chunk.encode() * count + b"tail" and writes[0]["size"] < writes[0]["wanted"]


def test_pwrites_each_where_the_last_one_ended_are_merged_and_others_are_not():
    """A checkpoint pwritten a byte at a time is one write, as with write: thousands of events crowded the rename and
    the folder's fsync out of the step's records, and a durable save lost its point (corpus full_save_pwrite_bytes)."""
    lines = [(7, 'openat(AT_FDCWD</w>, "/w/t", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3</w/t>', 0.0)]
    lines += [(7, f'pwrite64(3</w/t>, "{char}", 1, {offset}) = 1', 0.1) for offset, char in enumerate("abcdef")]
    lines += [(7, 'pwrite64(3</w/t>, "Z", 1, 0) = 1', 0.2), (7, 'write(3</w/t>, "!", 1) = 1', 0.3)]
    writes = [(r["data"], r["offset"]) for r in fs_trace.events(lines, 0, "/w") if r["op"] == "write"]
    assert writes == [(b"abcdef", 0), (b"Z", 0), (b"!", None)]


def test_a_run_of_out_of_order_pwrites_is_judged_once_where_it_ends():
    """pwrite byte by byte from the end: no merging, so thousands of records. The power cuts inside the run are
    judged once, after its last write (prefixes of all of it): not a rebuild of the file at each of them."""
    from types import SimpleNamespace

    from autograder.hidden_tests.crashes import Save, power_cuts
    from autograder.protocol import StepStatus

    data = NEW * 400
    records = [opened(CP, 3, "O_WRONLY|O_TRUNC")]
    records += [write(CP, 3, data[i:i + 1], offset=i) for i in reversed(range(len(data)))]
    records += [sync(CP, 3), close(CP, 3)]
    outcome = SimpleNamespace(workdir=W, scenario=SimpleNamespace(meta={"file": "cp.json"}, files={"cp.json": OLD}),
                              fs_events=[{"step": 0, "at": n, **r} for n, r in enumerate(records)], returned_at=[None],
                              steps=[{"status": StepStatus.RETURNED}])
    started = time.process_time()
    cuts = power_cuts(outcome, [Save(0, {"old": 1}, {"new": 2}, "in place")])
    assert time.process_time() - started < 10
    assert [cut.when for cut in cuts][:2] == ["在「打开 cp.json（清空）」之后", "在「写入 cp.json（1 字节）」之后"]
    half_done = {state for state in cuts[1].contents if state.startswith(b"\0") and state.endswith(data[-100:])}
    assert len(cuts) == 5 and {OLD, data} <= cuts[1].contents and half_done and cuts[-1].contents == {data}


def test_what_a_crash_leaves_is_bytes_whatever_the_model_keeps_inside():
    """Lesson 4 writes the files a kill leaves back into a scenario: a bytearray there made the grader fail."""
    fs = FileSystem({CP: OLD})
    for record in [opened(TMP, 3), write(TMP, 3, b"ab"), write(TMP, 3, b"cd", offset=2)]:
        fs.apply(record)
    assert fs.content(TMP) == b"abcd" and type(fs.content(TMP)) is bytes
    assert all(type(state) is bytes for state in fs.after_power_cut(TMP) if state is not None)


def test_the_graders_own_replacement_is_atomic_and_durable_at_once():
    fs = FileSystem({CP: OLD})
    for record in [opened(TMP, 3), write(TMP, 3, b"half")]:
        fs.apply(record)
    fs.apply({"op": "replace", "path": CP, "data": NEW})
    assert fs.after_power_cut(CP) == {NEW} and fs.content(CP) == NEW


def test_the_graders_removal_is_durable_at_once_and_the_file_made_again_needs_its_folder_fsynced():
    """Lesson 4 removes a ledger between two appends of one process (Scenario.files_before): the append that creates
    it again makes a new name, durable only once its folder is fsynced, whatever the name was before."""
    appended = [opened(CP, 3, "O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC"), write(CP, 3, NEW), sync(CP, 3), close(CP, 3)]
    fs = FileSystem({CP: OLD})
    fs.apply({"op": "remove", "path": CP})
    assert fs.after_power_cut(CP) == {None} and fs.content(CP) is None
    states, _ = states_along(appended, files={})
    assert states[-1] == {None, NEW}
    states, _ = states_along([{"op": "remove", "path": CP}, *appended])
    assert states[-1] == {None, NEW}
    states, _ = states_along([{"op": "remove", "path": CP}, *appended, *folder_sync()])
    assert states[-1] == {NEW}


def test_a_rename_from_another_folder_is_durable_with_the_target_folder():
    other = "/v/cp.json.tmp"
    records = [opened(other, 3), write(other, 3, NEW), sync(other, 3), close(other, 3), rename(other, CP)]
    states, _ = states_along(records)
    assert states[-1] == {OLD, NEW}
    states, _ = states_along(records + folder_sync())
    assert states[-1] == {NEW}


def agent_run(moments, end, returned_at=None):
    """What run_agent_problem reads of a grading outcome: one run_agent step in folder /w, checkpoint cp.json."""
    from types import SimpleNamespace

    kinds = {"call": [], "save": [], "model": [], "tool": []}
    for seq, (kind, record) in enumerate(moments, 1):
        kinds[kind].append({"step": 0, "seq": seq, **record})
    return SimpleNamespace(workdir=W, scenario=SimpleNamespace(meta={"file": "cp.json"}, files={}),
                           files_after={"cp.json": end}, fs_events=kinds["call"], standin_calls=kinds["save"],
                           model_calls=kinds["model"], tool_calls=kinds["tool"], returned_at=[returned_at])


A = {"version": 1, "task": "t", "turns": 1, "tokensUsed": 5, "messages": [], "pendingToolUse": {"id": "x"}}
B = {**A, "pendingToolUse": None}


def test_run_agent_with_whole_durable_saves_survives_every_power_cut():
    from autograder.hidden_tests.crashes import run_agent_problem
    from autograder.notebook_code import load_reference

    moments = [("model", {"at": 5, "snapshot": {"missing": True}}),
               ("save", {"at": 6, "name": "save_checkpoint", "state": A}),
               ("tool", {"at": 6, "name": "send_email", "snapshot": {"state": A}}),
               ("save", {"at": 6, "name": "save_checkpoint", "state": B}),
               ("model", {"at": 6, "snapshot": {"state": B}})]
    assert run_agent_problem(agent_run(moments, json.dumps(B)), load_reference()) is None


def test_a_save_point_written_in_place_may_be_empty_when_the_tool_runs():
    from autograder.hidden_tests.crashes import run_agent_problem
    from autograder.notebook_code import load_reference

    data = json.dumps(A).encode()
    moments = [("model", {"at": 5, "snapshot": {"missing": True}}),
               ("call", {"at": 6, **opened(CP, 3)}), ("call", {"at": 7, **write(CP, 3, data)}),
               ("call", {"at": 8, **close(CP, 3)}),
               ("tool", {"at": 9, "name": "send_email", "snapshot": {"state": A}})]
    problem = run_agent_problem(agent_run(moments, data.decode()), load_reference())
    assert problem is not None and "「打开 cp.json（清空）」之后断电，path 上是一个空文件" in problem


def test_a_thread_that_replaces_the_checkpoint_after_run_agent_returned_is_caught():
    """run_agent returned with B durably saved; a thread it left behind then replaces it, atomically and durably,
    with another checkpoint C: every state along the way is whole, but at the moment run_agent returned the
    checkpoint was not the one it finally left."""
    from autograder.hidden_tests.crashes import run_agent_problem
    from autograder.notebook_code import load_reference

    other = {**B, "turns": 7}
    durable = [("save", {"at": 6, "name": "save_checkpoint", "state": B})]
    later = [("save", {"at": 20, "name": "save_checkpoint", "state": other})]
    final = json.dumps(other)
    assert run_agent_problem(agent_run(durable + later, final), load_reference()) is None  # when it returned: unknown
    problem = run_agent_problem(agent_run(durable + later, final, returned_at=10), load_reference())
    assert problem is not None and "run_agent 返回的那一刻断电" in problem
    assert run_agent_problem(agent_run(durable, json.dumps(B), returned_at=10), load_reference()) is None


def test_a_save_point_not_yet_durable_when_the_tool_runs_is_named():
    """Atomic (O_SYNC data, then a rename) but the folder is not fsynced: at the tool call the checkpoint may
    still be missing."""
    from autograder.hidden_tests.crashes import run_agent_problem
    from autograder.notebook_code import load_reference

    data = json.dumps(A).encode()
    moments = [("model", {"at": 5, "snapshot": {"missing": True}}),
               ("call", {"at": 6, **opened(TMP, 3, "O_WRONLY|O_CREAT|O_SYNC")}), ("call", {"at": 7, **write(TMP, 3, data)}),
               ("call", {"at": 8, **close(TMP, 3)}), ("call", {"at": 9, **rename(TMP, CP)}),
               ("tool", {"at": 10, "name": "send_email", "snapshot": {"state": A}})]
    problem = run_agent_problem(agent_run(moments, data.decode()), load_reference())
    assert problem is not None and "执行工具 send_email 的那一刻断电，path 上没有检查点文件" in problem
    moments[-1:-1] = [("call", {"at": 9, **record}) for record in folder_sync()]
    assert run_agent_problem(agent_run(moments, data.decode()), load_reference()) is None


def test_open_that_creates_records_the_mode_given():
    """The mode bits a created file is given (strace prints them in octal): lesson 4 judges a ledger its owner cannot
    read (os.open(..., 644), the decimal 644) by them."""
    lines = [(7, 'openat(AT_FDCWD</w>, "/w/ledger.jsonl", O_WRONLY|O_CREAT|O_APPEND, 01204) = 3</w/ledger.jsonl>', 1.0),
             (7, 'openat(AT_FDCWD</w>, "/w/other.jsonl", O_WRONLY|O_APPEND) = 4</w/other.jsonl>', 2.0)]
    created, opened = fs_trace.events(lines, 0, "/w")
    assert created["mode"] == 644 and "mode" not in opened


STARTUP_WRITES = textwrap.dedent('''
    import os, sys
    folder, readonly, mail = sys.argv[1], sys.argv[2], sys.argv[3]
    open(os.path.join(folder, "site.pth"), "r").close()  # read, as the site module does: not a write
    with open(os.path.join(folder, "a.pth"), "w") as file:
        file.write("import os")
    os.rename(os.path.join(folder, "a.pth"), os.path.join(folder, "sitecustomize.py"))
    os.symlink(os.path.join(folder, "sitecustomize.py"), os.path.join(folder, "usercustomize.py"))
    os.chmod(readonly, 0o500)
    try:
        open(os.path.join(readonly, "refused.pth"), "w")
    except OSError:
        pass
    with open(os.path.join(folder, "notes.pth.txt"), "w"):  # only the name's end counts
        pass
    os.listdir(mail)  # read: not a write
    with open(os.path.join(mail, "new", "forged.eml"), "w"):
        pass
    os.unlink(os.path.join(mail, "cur", "sent.eml"))
''')


def test_strace_names_what_a_later_python_would_run_and_changes_to_a_guarded_folder(tmp_path):
    """Files the site module runs as a Python starts (a .pth, sitecustomize.py, usercustomize.py) and names in a
    guarded folder (the Maildir), opened for writing, renamed from or to, linked to or removed, are named wherever
    they are and whether or not the call succeeded; reading one is not."""
    log, script = tmp_path / "trace.log", tmp_path / "startup.py"
    script.write_text(STARTUP_WRITES, encoding="utf-8")
    folder, elsewhere, mail = tmp_path / "work", tmp_path / "site-packages", tmp_path / "maildir"
    for made in (folder, elsewhere, mail / "new", mail / "cur"):
        made.mkdir(parents=True)
    (folder / "site.pth").write_text("", encoding="utf-8")
    (mail / "cur" / "sent.eml").write_text("", encoding="utf-8")
    subprocess.run([*fs_trace.strace_command("strace", str(log)), sys.executable, str(script), str(folder),
                    str(elsewhere), str(mail)], check=True, capture_output=True)
    attempts = []
    fs_trace.events(fs_trace.TraceLog(log).read_available(), 0, str(folder), guarded=(str(mail),), attempts=attempts)
    # (as root the refused one is not refused: seen all the same)
    expected = [folder / "a.pth", folder / "a.pth", folder / "sitecustomize.py", folder / "usercustomize.py",
                elsewhere / "refused.pth", mail / "new" / "forged.eml", mail / "cur" / "sent.eml"]
    assert attempts == [str(path) for path in expected]
