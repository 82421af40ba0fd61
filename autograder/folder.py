"""A scenario's working folder, read and written by the grader without following anything the
student's code left in it."""
import os
import random
import secrets
import shutil
import stat
from pathlib import Path

from .scenario import Appended, FileData

MAX_FILE_BYTES = 16 * 1024 * 1024  # of one file the grader reads back
MAX_FILES_LISTED = 500


def _open_own_unreadable(name: str, folder: int) -> int | None:
    """A regular file of the grader's own whose mode bits keep the grader out (a FileData of mode 0o000, for a
    grader that is no root), opened for reading: read permission is given for the open and taken back."""
    try:
        handle = os.open(name, os.O_PATH | os.O_NOFOLLOW, dir_fd=folder)
    except OSError:
        return None
    through = f"/proc/self/fd/{handle}"  # the inode the handle holds, whatever is at the name by now
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid():
            return None
        os.chmod(through, stat.S_IMODE(status.st_mode) | stat.S_IRUSR)
        try:
            return os.open(through, os.O_RDONLY | os.O_NONBLOCK)
        finally:
            os.chmod(through, stat.S_IMODE(status.st_mode))
    except OSError:
        return None
    finally:
        os.close(handle)


def _open_up(top: Path) -> None:
    """Owner rwx on every folder under `top`, links not followed: a grader that is no root can then list and empty
    them. The step's processes have ended, so nothing changes under it meanwhile."""
    pending = [str(top)]
    while pending:
        folder = pending.pop()
        try:
            os.chmod(folder, stat.S_IRWXU)
            with os.scandir(folder) as entries:
                pending.extend(entry.path for entry in entries if entry.is_dir(follow_symlinks=False))
        except OSError:
            continue


class Folder:
    """A working folder seen from the grader, through a directory fd opened once: nothing in it is followed
    out of it (a symlink the student's code leaves there never makes the grader read or write elsewhere)."""

    def __init__(self, host_path: Path, inside: str):
        self.inside = inside
        host_path.mkdir()
        self.fd = os.open(host_path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self.host_path = host_path

    @staticmethod
    def parts(relative: str) -> list:
        parts = [p for p in str(relative).split("/") if p not in ("", ".")]
        if not parts or ".." in parts:
            raise ValueError(f"不在工作目录里的路径：{relative}")
        return parts

    def relative(self, inside_path: str) -> str:
        """The path relative to the folder, for a path as the student's code names it (ValueError outside)."""
        normal = os.path.normpath(os.path.join(self.inside, os.fspath(inside_path)))
        if not normal.startswith(self.inside + "/"):
            raise ValueError("评分时只能在工作目录里读写检查点")
        return normal[len(self.inside) + 1:]

    def _directory(self, parts: list, create: bool = False) -> int:
        fd = os.dup(self.fd)
        try:
            for part in parts:
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = inner
            return fd
        except BaseException:
            os.close(fd)
            raise

    def make_parents(self, relative: str):
        os.close(self._directory(self.parts(relative)[:-1], create=True))

    def make_folder(self, relative: str):
        os.close(self._directory(self.parts(relative), create=True))

    def read_bytes(self, relative: str) -> bytes | None:
        """The file's bytes; None when there is no regular file there (missing, a symlink, a folder)."""
        try:
            parts = self.parts(relative)
            folder = self._directory(parts[:-1])
        except (OSError, ValueError):
            return None
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except PermissionError:
            fd = _open_own_unreadable(parts[-1], folder)
        except OSError:
            return None
        finally:
            os.close(folder)
        if fd is None:
            return None
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return file.read(MAX_FILE_BYTES)

    def stat(self, relative: str) -> tuple | None:
        """(size, modification time, change time (ns), inode) of the file, not following a symlink; None if there is
        none. The change time is the kernel's own: os.utime can put the modification time back, not it."""
        try:
            parts = self.parts(relative)
            folder = self._directory(parts[:-1])
        except (OSError, ValueError):
            return None
        try:
            found = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        except OSError:
            return None
        finally:
            os.close(folder)
        return found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino

    def write_atomically(self, relative: str, data: bytes):
        parts = self.parts(relative)
        folder = self._directory(parts[:-1], create=True)
        temporary = f".grader-{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                os.fchmod(file.fileno(), getattr(data, "mode", 0o644))  # autograder.scenario.FileData's
                if getattr(data, "mtime_ns", None) is not None:
                    file.flush()
                    os.utime(file.fileno(), ns=(data.mtime_ns, data.mtime_ns))
            os.replace(temporary, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:  # a full working folder, say: the student's listing must not show the grader's file
            try:
                os.unlink(temporary, dir_fd=folder)
            except OSError:
                pass
            raise
        finally:
            os.close(folder)

    def put(self, relative: str, content):
        """The file at `relative` made to hold `content` (text, bytes or FileData), removed (None), or added to in
        place (Appended), as Scenario.files_before says."""
        if content is None:
            parts = self.parts(relative)
            folder = self._directory(parts[:-1])
            try:
                os.unlink(parts[-1], dir_fd=folder)
            except FileNotFoundError:
                pass
            finally:
                os.close(folder)
        elif isinstance(content, Appended):
            parts = self.parts(relative)
            folder = self._directory(parts[:-1], create=True)
            try:
                fd = os.open(parts[-1], os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644, dir_fd=folder)
            finally:
                os.close(folder)
            with os.fdopen(fd, "wb") as file:
                file.write(content)
        else:
            self.write_atomically(relative, content if isinstance(content, bytes) else content.encode("utf-8"))

    def regular_files(self) -> list:
        """Sorted relative paths of the regular files under the folder (symlinks are not followed)."""
        found = []

        def walk(fd, prefix):
            with os.scandir(fd) as entries:
                for entry in entries:
                    if len(found) >= MAX_FILES_LISTED:
                        return
                    if entry.is_file(follow_symlinks=False):
                        found.append(prefix + entry.name)
                    elif entry.is_dir(follow_symlinks=False):
                        try:
                            inner = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                        except OSError:
                            continue
                        try:
                            walk(inner, prefix + entry.name + "/")
                        finally:
                            os.close(inner)

        walk(self.fd, "")  # scandir works on its own copy of the descriptor
        return sorted(found)

    def remove(self):
        os.close(self.fd)
        shutil.rmtree(self.host_path, ignore_errors=True)
        if os.path.lexists(self.host_path):  # a folder the step shut (mode 000): its files would fill the session's disk
            _open_up(self.host_path)
            shutil.rmtree(self.host_path, ignore_errors=True)


def notebook_folder_files(lesson_folder: Path, notebook_name: str, submitted: bytes, now: float,
                          rng: random.Random) -> dict:
    """{relative path: FileData}: what JupyterLab's folder holds beside the checkpoint, where the notebook's code
    runs: the notebook as handed in, the copy JupyterLab keeps in .ipynb_checkpoints/ and the lesson's other files
    (loop.svg), taken from `lesson_folder` (source/<lesson>/, which every course folder has) but for its notebooks,
    which hold the solutions. Their times are a student's: the notebook saved minutes to hours before `now`, its copy
    when it was last saved by hand (copied with its time, so never newer), the rest when the lesson arrived.
    Untouched, no listing of the working folder shows them (Places)."""
    saved = int((now - rng.uniform(60, 3 * 3600)) * 1e9)
    copied = saved - int(rng.choice([0, rng.uniform(60, 3600)]) * 1e9)
    arrived = copied - int(rng.uniform(3600, 7 * 24 * 3600) * 1e9)
    files = {path.name: FileData(path.read_bytes(), mtime_ns=arrived) for path in sorted(lesson_folder.iterdir())
             if path.is_file() and path.suffix != ".ipynb"}
    if submitted:
        files[f"{notebook_name}.ipynb"] = FileData(submitted, mtime_ns=saved)
        files[f".ipynb_checkpoints/{notebook_name}-checkpoint.ipynb"] = FileData(submitted, mtime_ns=copied)
    return files


class Places:
    """Where a scenario's steps may write, seen from the grader: its working folder (files named relative to it) and
    its own /tmp and /dev/shm (files named by their whole path, as the step names them), kept from step to step as a
    kernel keeps them from cell to cell, and removed with the scenario."""

    def __init__(self, folder: Folder, scratch: dict, decor: dict | None = None):
        self.folder = folder
        self.scratch = scratch  # {"/tmp": Folder, "/dev/shm": Folder}, each as the step sees it; none unisolated
        self.decor = decor or {}  # the notebook's own files in the working folder (notebook_folder_files)

    def _where(self, name: str) -> tuple:
        for inside, kept in self.scratch.items():
            if name.startswith(inside + "/"):
                return kept, name[len(inside) + 1:]
        return self.folder, name

    def regular_files(self) -> list:
        """Every file the steps may have left, but the notebook's own files as they were put there."""
        return sorted([*(name for name in self.folder.regular_files()
                         if name not in self.decor or self.folder.read_bytes(name) != self.decor[name]),
                       *(f"{inside}/{name}" for inside, kept in self.scratch.items() for name in kept.regular_files())])

    def stat(self, name: str) -> tuple | None:
        folder, relative = self._where(name)
        return folder.stat(relative)

    def read_bytes(self, name: str) -> bytes | None:
        folder, relative = self._where(name)
        return folder.read_bytes(relative)

    def path(self, name: str) -> str:
        """The file's whole path, as the step names it."""
        return os.path.join(self.folder.inside, name)

    def remove(self):
        for folder in (self.folder, *self.scratch.values()):
            folder.remove()
