"""Read a submission folder without following anything out of it.

A submission is whatever a student (or an LMS download) left in submitted/<student>/<lesson>/.
The grader runs with the instructor's rights, often root, so everything in that folder is
looked at with lstat and opened relative to an open folder with O_NOFOLLOW: a symlink,
a device, a FIFO or a socket is never opened (a FIFO would block, /dev/zero never ends, a
link to /etc/shadow would copy a secret), a hard link whose other names lie outside the
submission is not read, and no file larger than the limits is read. Each skipped entry is a
`Skipped` with a reason in Chinese, for the student's feedback and the instructor's summary.
"""
import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 64 * 1024 * 1024  # one file (a notebook with big outputs is well under this)
MAX_TOTAL_BYTES = 128 * 1024 * 1024  # the whole submission
MAX_ENTRIES = 2000
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_FOLDER = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_KINDS = ((stat.S_ISLNK, "符号链接"), (stat.S_ISFIFO, "命名管道（FIFO）"), (stat.S_ISSOCK, "套接字"),
          (stat.S_ISCHR, "字符设备"), (stat.S_ISBLK, "块设备"))


class NotRegular(OSError):
    """The path is not a regular file of the submission (a link, a device, a FIFO, too large...)."""


@dataclass(frozen=True)
class Skipped:
    path: str  # relative to the submission folder
    reason: str  # Chinese, for people

    def note(self) -> str:
        return f"提交里的 {self.path} 是{self.reason}，评分器没有打开也没有复制它。"


@dataclass
class Contents:
    """What may be read in one submission folder."""
    folder: Path
    files: dict = field(default_factory=dict)  # relative path -> size, regular files only
    skipped: list = field(default_factory=list)  # of Skipped
    read_bits: int = 0o444  # the r bits every user class has on all of it (folder and files)
    present: bool = False  # the folder exists and is a real folder

    def read(self, relative: str) -> bytes:
        """The bytes of one regular file found by the scan, re-checked as it is opened."""
        if relative not in self.files:
            raise NotRegular(f"{relative} 不是这份提交里能读的普通文件")
        return read_regular(self.folder / relative, MAX_FILE_BYTES)

    def fingerprint(self) -> str:
        """sha256 over the readable files' paths and bytes and the skipped entries: changes with a new submission."""
        digest = hashlib.sha256()
        for relative in sorted(self.files):
            try:
                data = self.read(relative)
            except OSError as exc:  # unreadable now: its name and the error still say what was there
                data = f"<{type(exc).__name__}>".encode()
            digest.update(relative.encode() + b"\0" + data + b"\0")
        for skipped in self.skipped:
            digest.update(b"skipped\0" + skipped.path.encode() + b"\0" + skipped.reason.encode() + b"\0")
        return digest.hexdigest()


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path` if its last component is a regular file of at most `limit` bytes."""
    fd = os.open(path, _OPEN_FILE)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(f"{path.name} 不是普通文件")
        if info.st_size > limit:
            raise NotRegular(f"{path.name} 有 {info.st_size} 字节，超过 {limit} 字节的上限")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:  # it grew while being read
            raise NotRegular(f"{path.name} 超过 {limit} 字节的上限")
        return data
    finally:
        os.close(fd)


def scan(folder: Path, base: Path | None = None) -> Contents:
    """Every entry under `folder`, looked at with lstat only. Neither `folder` nor any folder between
    `base` (trusted, the course's submitted/) and it may be a link."""
    folder = Path(folder)
    contents = Contents(folder)
    try:
        top = _open_folder(folder, base)
    except FileNotFoundError:
        return contents
    except OSError as exc:
        reason = "符号链接" if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and os.path.islink(folder)) \
            else f"读不了的文件夹（{exc.strerror}）"
        contents.skipped.append(Skipped(".", reason))
        contents.read_bits = 0
        return contents
    contents.present = True
    links, total = {}, 0
    try:
        contents.read_bits &= os.fstat(top).st_mode
        pending = [(top, "")]
        while pending:
            fd, prefix = pending.pop()
            try:
                entries = sorted(os.listdir(fd))
            except OSError as exc:
                contents.skipped.append(Skipped(prefix or ".", f"读不了的文件夹（{exc.strerror}）"))
                entries = []
            for name in entries:
                relative = f"{prefix}{name}"
                if len(contents.files) + len(contents.skipped) >= MAX_ENTRIES:
                    contents.skipped.append(Skipped(relative, f"第 {MAX_ENTRIES} 个之后的条目（条目太多）"))
                    break
                info = os.lstat(name, dir_fd=fd)
                kind = _kind(info.st_mode)
                if stat.S_ISDIR(info.st_mode):
                    try:
                        pending.append((os.open(name, _OPEN_FOLDER, dir_fd=fd), relative + "/"))
                        contents.read_bits &= info.st_mode
                    except OSError as exc:
                        contents.skipped.append(Skipped(relative, f"读不了的文件夹（{exc.strerror}）"))
                elif kind is not None:
                    contents.skipped.append(Skipped(relative, kind))
                elif not os.access(name, os.R_OK, dir_fd=fd):  # lstat said regular; read_regular checks again
                    contents.skipped.append(Skipped(relative, "读不了的文件（没有读权限）"))
                elif info.st_size > MAX_FILE_BYTES or total + info.st_size > MAX_TOTAL_BYTES:
                    contents.skipped.append(Skipped(relative, f"太大的文件（{info.st_size} 字节）"))
                else:
                    total += info.st_size
                    contents.files[relative] = info.st_size
                    contents.read_bits &= info.st_mode
                    if info.st_nlink > 1:
                        links.setdefault((info.st_dev, info.st_ino), [info.st_nlink]).append(relative)
            if fd != top:
                os.close(fd)
    finally:
        os.close(top)
    for count, *names in links.values():
        if len(names) < count:  # another name of the same file lies outside the submission
            for relative in names:
                del contents.files[relative]
                contents.skipped.append(Skipped(relative, "指向提交之外某个文件的硬链接"))
    contents.read_bits &= 0o444
    return contents


def _open_folder(folder: Path, base: Path | None) -> int:
    """An fd of `folder`, opened one component at a time below `base` without following a link."""
    if base is None:
        return os.open(folder, _OPEN_FOLDER)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in folder.relative_to(base).parts:
            inner = os.open(part, _OPEN_FOLDER, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _kind(mode: int) -> str | None:
    return next((name for test, name in _KINDS if test(mode)), None)


def copy_files(contents: Contents, target: Path, leave_out=lambda relative: False) -> list:
    """Copy the readable files into `target` (made fresh), owner-only; return what could not be copied."""
    failed = []
    for relative in sorted(contents.files):
        if leave_out(relative):
            continue
        try:
            data = contents.read(relative)
        except OSError as exc:
            failed.append(Skipped(relative, f"读不出来的文件（{exc}）"))
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    return failed


def nbgrader_permissions(read_bits: int, writable: bool) -> int:
    """nbgrader's `permissions` setting (octal digits written as a decimal int, e.g. 444) for files made
    from a submission: readable by no more user classes than the submission itself."""
    mode = (read_bits & 0o444) | 0o400 | (0o200 if writable else 0)
    return int(f"{mode:o}")
