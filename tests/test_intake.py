"""autograder.intake: a submission folder is read, never followed."""
import os
import stat

import pytest

from autograder import intake


def make_submission(folder):
    folder.mkdir(parents=True)
    (folder / "notebook.ipynb").write_text("{}", encoding="utf-8")
    (folder / "notes").mkdir()
    (folder / "notes" / "a.txt").write_text("mine", encoding="utf-8")
    return folder


def test_regular_files_are_listed_and_read(tmp_path):
    contents = intake.scan(make_submission(tmp_path / "s"))
    assert contents.present
    assert sorted(contents.files) == ["notebook.ipynb", "notes/a.txt"]
    assert contents.read("notes/a.txt") == b"mine"
    assert contents.skipped == []


@pytest.mark.parametrize("make, reason", [
    (lambda p, outside: p.symlink_to(outside), "符号链接"),
    (lambda p, outside: p.symlink_to(outside.parent / "missing"), "符号链接"),
    (lambda p, outside: p.symlink_to("/dev/zero"), "符号链接"),
    (lambda p, outside: os.mkfifo(p), "命名管道"),
    (lambda p, outside: os.link(outside, p), "硬链接"),
])
def test_links_devices_and_fifos_are_skipped_unopened(tmp_path, make, reason):
    outside = tmp_path / "secret.txt"
    outside.write_text("not the student's", encoding="utf-8")
    folder = make_submission(tmp_path / "s")
    make(folder / "resume-from-checkpoint.ipynb", outside)
    contents = intake.scan(folder)
    assert "resume-from-checkpoint.ipynb" not in contents.files
    assert [s.path for s in contents.skipped] == ["resume-from-checkpoint.ipynb"]
    assert reason in contents.skipped[0].note()
    with pytest.raises(intake.NotRegular):
        contents.read("resume-from-checkpoint.ipynb")
    target = tmp_path / "copy"
    target.mkdir()
    assert intake.copy_files(contents, target) == []
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()) == ["notebook.ipynb",
                                                                                             "notes/a.txt"]


def test_a_linked_folder_is_not_entered(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "x.txt").write_text("x", encoding="utf-8")
    folder = make_submission(tmp_path / "s")
    (folder / "inner").symlink_to(tmp_path / "elsewhere")
    contents = intake.scan(folder)
    assert "inner/x.txt" not in contents.files and [s.path for s in contents.skipped] == ["inner"]


def test_a_submission_folder_that_is_a_link_is_refused(tmp_path):
    base = tmp_path / "submitted"
    (base / "alice").mkdir(parents=True)
    make_submission(tmp_path / "elsewhere")
    (base / "alice" / "lesson03").symlink_to(tmp_path / "elsewhere")
    contents = intake.scan(base / "alice" / "lesson03", base=base)
    assert not contents.present and contents.files == {}
    assert "符号链接" in contents.skipped[0].reason
    (base / "bob").symlink_to(tmp_path / "elsewhere")  # a link higher up, to a folder that has lesson03 in it
    (tmp_path / "elsewhere" / "lesson03").mkdir()
    assert not intake.scan(base / "bob" / "lesson03", base=base).present


def test_size_limits(tmp_path, monkeypatch):
    folder = make_submission(tmp_path / "s")
    (folder / "big.bin").write_bytes(b"x" * 2000)
    monkeypatch.setattr(intake, "MAX_FILE_BYTES", 1000)
    contents = intake.scan(folder)
    assert "big.bin" not in contents.files and "太大" in contents.skipped[0].reason
    with pytest.raises(intake.NotRegular):
        intake.read_regular(folder / "big.bin", 1000)


def test_fingerprint_changes_with_the_files_and_the_skipped_entries(tmp_path):
    folder = make_submission(tmp_path / "s")
    first = intake.scan(folder).fingerprint()
    assert intake.scan(folder).fingerprint() == first
    (folder / "notes" / "a.txt").write_text("changed", encoding="utf-8")
    second = intake.scan(folder).fingerprint()
    (folder / "link").symlink_to("/etc/passwd")
    assert len({first, second, intake.scan(folder).fingerprint()}) == 3


def test_permissions_are_never_wider_than_the_submission(tmp_path):
    folder = make_submission(tmp_path / "s")
    assert intake.scan(folder).read_bits == 0o444 & ~_umask_bits()
    os.chmod(folder / "notes" / "a.txt", 0o600)
    bits = intake.scan(folder).read_bits
    assert bits == 0o400
    assert intake.nbgrader_permissions(bits, writable=False) == 400
    assert intake.nbgrader_permissions(0o444, writable=True) == 644
    target = tmp_path / "copy"
    target.mkdir()
    intake.copy_files(intake.scan(folder), target)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in target.rglob("*") if p.is_file())


def _umask_bits() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask & 0o444
