"""Every state a crash could leave on disk, rebuilt from the file-system calls strace recorded.

The grader replays a step's calls (autograder.fs_trace records) on a model of the file
system, and at any moment asks what a file could hold if the machine lost power right
then: `FileSystem(files)`, `.apply(record)` for each call in order, `.after_power_cut(path)`.
The model is the abstract persistence model of ALICE (Pillai et al., "All File Systems Are
Not Created Equal", OSDI 2014), written down for the files the lesson writes, with the
guarantees POSIX and Linux give (fsync(2), open(2)):

- A process crash keeps what the kernel accepted (the page cache): the state after any call.
- A power cut keeps what was made durable, and of the rest possibly some, possibly none:
  - A file's data (its writes and truncations) is durable after `fsync` or `fdatasync` of
    it, after each write through a descriptor opened with `O_SYNC` or `O_DSYNC` (or given pwritev2's `RWF_SYNC`,
    `RWF_DSYNC`), and after
    `sync()` / `syncfs()`. Of the changes since, a power cut keeps a prefix in order, the
    last change of the prefix maybe only in part (a write cut off part-way). The size may
    reach the disk before the data, so an empty or half-written file is a possible state.
  - A name (a file created, renamed, linked or unlinked in a folder) is durable after an
    `fsync` of the folder itself, or `sync()`: `fsync` of a file does not make its name
    durable (Linux fsync(2)). Of the name changes since, a power cut keeps a prefix in
    order; each rename is atomic (the name points at the old file or the new one).
  - Names and data reach the disk independently: a rename may survive while the data of
    the file it points at does not (the "empty file after a crash" of delayed allocation).

On Windows (`names_need_folder_fsync=False`) a folder cannot be opened to fsync it, and the course
takes a name change as durable when it is made.

Files the step found in place (`files`) are durable. Folders are not modelled: the
checkpoint's folder exists before the step. Each file's prefixes are bounded
(`MAX_PREFIXES`, as CrashMonkey bounds its states), always including none and all.
"""
import os

from .fs_trace import DELETED

MAX_PREFIXES = 8  # prefixes of a file's pending changes tried (evenly spaced, none and all included)


def _change(content: bytearray, change: tuple):
    """Apply one ("write", offset, data) or ("truncate", length) to `content`, in place: a file written a byte at a
    time costs each change its own bytes, not a copy of the whole file."""
    if change[0] == "truncate":
        length = change[1]
        del content[length:]
        content.extend(bytes(length - len(content)))
        return
    _, offset, data = change
    if offset > len(content):
        content.extend(bytes(offset - len(content)))
    content[offset:offset + len(data)] = data


def _part(change: tuple) -> tuple | None:
    """The first half of a write (what reached the disk of a write cut off part-way), or None."""
    if change[0] != "write" or len(change[2]) < 2:
        return None
    return ("write", change[1], change[2][:len(change[2]) // 2])


class _File:
    def __init__(self, durable: bytes):
        self.durable = durable  # what a power cut keeps for certain
        self.pending = []  # changes since it was last made durable, in order
        self.content = bytearray(durable)  # what the page cache holds
        self.states = None  # after_power_cut's answer until the file changes: asked after every call of a step

    def change(self, change: tuple):
        _change(self.content, change)
        self.pending.append(change)
        self.states = None

    def sync(self):
        self.durable, self.pending, self.states = bytes(self.content), [], None

    def after_power_cut(self) -> set:
        if self.states is None:
            self.states = self._after_power_cut()
        return self.states

    def _after_power_cut(self) -> set:
        count = len(self.pending)
        kept = sorted({round(i * count / (MAX_PREFIXES - 1)) for i in range(MAX_PREFIXES)} if count >= MAX_PREFIXES
                      else range(count + 1))
        states, content, done = set(), bytearray(self.durable), 0
        for number in kept:
            for change in self.pending[done:number]:
                _change(content, change)
            done = number
            states.add(bytes(content))
            part = _part(self.pending[number]) if number < count else None
            if part:
                cut_off = bytearray(content)
                _change(cut_off, part)
                states.add(bytes(cut_off))
        return states


def _renamed(names: dict, change: tuple):
    """Apply one name change to a {path: file id} map: ("link", path, id), ("unlink", path, None) or
    ("rename", source, (target, id)); a rename puts its file at the target even where the source's name
    never reached the disk (another folder's change, not yet durable)."""
    kind, path, other = change
    if kind == "unlink":
        names.pop(path, None)
    elif kind == "link":
        names[path] = other
    else:
        names.pop(path, None)
        names[other[0]] = other[1]


class FileSystem:
    """The page cache and the disk of the files under a step's eyes, as the recorded calls change them."""

    def __init__(self, files: dict, names_need_folder_fsync: bool = True):
        # False for Windows, where a folder cannot be opened to fsync it: the course accepts a rename as it stands
        self.names_need_folder_fsync = names_need_folder_fsync
        self.files = {}  # id -> _File
        self.names = {}  # path -> id, as the page cache has them
        self.durable_names = {}  # path -> id, on disk
        self.pending = {}  # folder -> name changes not yet durable: ("link", path, id), ("unlink", path, None), ...
        self.descriptors = {}  # fd -> {"path", "file" (id or None), "position", "append", "sync", "writable"}
        self.mixed = set()  # files opened with and without O_SYNC at once: their O_SYNC is not trusted
        for path, data in files.items():
            self._existing(os.path.normpath(path), data)

    def _existing(self, path: str, data: bytes = b"") -> int:
        """The id of the file at `path`; one found in place (durable, its content unknown: `data`) if none."""
        if path not in self.names:
            number = len(self.files)
            self.files[number] = _File(data)
            self.names[path] = self.durable_names[path] = number
        return self.names[path]

    def _created(self, path: str) -> int:
        """The id of a new empty file, now named `path` (durably once its folder is fsynced)."""
        number = len(self.files)
        self.files[number] = _File(b"")
        self._rename(("link", path, number))
        return number

    def _rename(self, change: tuple):
        _renamed(self.names, change)
        folder = os.path.dirname(change[2][0] if change[0] == "rename" else change[1])  # where the new name lives
        self.pending.setdefault(folder, []).append(change)
        if not self.names_need_folder_fsync:
            self._sync_folder(folder)

    def _sync_folder(self, folder: str):
        for change in self.pending.pop(folder, []):
            _renamed(self.durable_names, change)

    def _descriptor_file(self, record: dict) -> _File:
        fd = self.descriptors.get(record.get("fd"))
        named = self.names.get(_path(record.get("path")))
        if fd is not None and named is not None and fd["file"] != named:
            # the number now stands for another file (dup2, dup3, fcntl: calls strace does not stop at): strace's
            # decoration of the descriptor says which, and where it writes is not known here
            fd.update(file=named, position=len(self.files[named].content), append=False, sync=False)
        if fd is None or fd["file"] is None:
            number = self._existing(_path(record["path"]))
            if fd is not None:
                fd["file"] = number
            return self.files[number]
        return self.files[fd["file"]]

    def apply(self, record: dict):
        """One fs_trace record: what the call did to the page cache, and what it made durable."""
        op, path, fd = record["op"], _path(record.get("path")), record.get("fd")
        if op == "open":
            flags = str(record.get("flags", ""))
            number = self.names.get(path)
            if number is None and "O_CREAT" in flags:
                number = self._created(path)
            elif number is not None and "O_TRUNC" in flags:
                self.files[number].change(("truncate", 0))
            synchronous = "O_SYNC" in flags or "O_DSYNC" in flags
            writable = "O_WRONLY" in flags or "O_RDWR" in flags  # only such a descriptor can stand in for a writer
            others = [d for d in self.descriptors.values() if d["file"] == number and d["writable"]] \
                if writable and number is not None else []
            if any(d["sync"] != synchronous for d in others) or (writable and number in self.mixed):
                # descriptors of one file with and without O_SYNC at once: dup2 (which strace does not see) or another
                # process's same number can put the one where the other was, so no write to it is trusted as synced
                self.mixed.add(number)
                synchronous = False
                for other in others:
                    other["sync"] = False
            if fd is not None:  # a folder, or a file from before the trace, has no id until written
                self.descriptors[fd] = {"path": path, "file": number, "position": 0, "append": "O_APPEND" in flags,
                                        "sync": synchronous, "writable": writable}
        elif op == "write":
            self._write(record)
        elif op == "truncate":
            file = self._descriptor_file(record) if fd is not None else self.files[self._existing(path)]
            file.change(("truncate", record.get("length") or 0))
        elif op == "seek" and fd in self.descriptors and record.get("position") is not None:
            self.descriptors[fd]["position"] = record["position"]
        elif op in ("fsync", "fdatasync"):
            descriptor = self.descriptors.get(fd)
            same = descriptor and descriptor["file"] is not None and (
                path is None or path == descriptor["path"] or record["path"].endswith(DELETED))
            if path in self.names or same:
                self._descriptor_file(record).sync()
            else:  # a folder: strace names what the descriptor is now, whatever number it had when it was opened
                self._sync_folder(path)
        elif op == "sync":
            for file in self.files.values():
                file.sync()
            for folder in list(self.pending):
                self._sync_folder(folder)
        elif op in ("rename", "link"):
            through = self.descriptors.get(fd) if op == "link" else None  # a link of /proc/self/fd/N
            number = through["file"] if through and through["file"] is not None else self._existing(path)
            target = os.path.normpath(record["dst"])
            self._rename(("rename", path, (target, number)) if op == "rename" else ("link", target, number))
        elif op == "unlink" and path in self.names:
            self._rename(("unlink", path, None))
        elif op == "mknod" and path not in self.names:  # a FIFO, an empty file, a symbolic link: no bytes written
            self._created(path)
        elif op == "close":
            self.descriptors.pop(fd, None)
        elif op == "replace":  # made by the grader itself (its stand-in save): atomic and durable at once
            self._sync_folder(os.path.dirname(path))
            number = len(self.files)
            self.files[number] = _File(record["data"])
            self.names[path] = self.durable_names[path] = number
        elif op == "remove":  # made by the grader itself (Scenario.files_before): durable at once
            self._sync_folder(os.path.dirname(path))
            self.names.pop(path, None)
            self.durable_names.pop(path, None)

    def _write(self, record: dict):
        file = self._descriptor_file(record)
        descriptor = self.descriptors.get(record.get("fd")) or {"position": len(file.content), "append": True,
                                                                 "sync": False}
        data = record.get("data")
        size = record.get("size") or 0
        if data is None:  # sendfile, copy_file_range: the bytes come from another file, unknown here
            data = b"\0" * size
        if record.get("offset") is not None:
            offset = record["offset"]
        else:
            offset = len(file.content) if descriptor["append"] else descriptor["position"]
            descriptor["position"] = offset + len(data)
        file.change(("write", offset, data))
        if descriptor["sync"] or record.get("sync"):
            file.sync()

    def content(self, path: str) -> bytes | None:
        """What a process crash leaves at `path` (the page cache), None when no file is there."""
        number = self.names.get(os.path.normpath(path))
        return None if number is None else bytes(self.files[number].content)

    def after_power_cut(self, path: str) -> set:
        """Every content a power cut now could leave at `path` (None: no file there)."""
        path = os.path.normpath(path)
        names = dict(self.durable_names)
        states = set()
        changes = self.pending.get(os.path.dirname(path), [])
        for count in range(len(changes) + 1):
            if count:
                _renamed(names, changes[count - 1])
            number = names.get(path)
            if number is None:
                states.add(None)
            else:
                states |= self.files[number].after_power_cut()
        return states


def _path(path):
    if path is None:
        return None
    return os.path.normpath(path)
