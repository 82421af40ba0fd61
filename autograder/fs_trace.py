"""What the file system saw, read from strace's log of the sandbox (never from the sandbox itself).

The grader runs the sandbox under `strace -f -y` (see `strace_command`): the kernel stops
a traced process at each of the system calls in TRACED, and strace, outside the sandbox,
writes what the call was, with every file descriptor followed by the path the kernel
knows for it (`write(3</work/ab/cp.json.tmp>, ...)`). Student code can patch `os.fsync`,
`json` or the builtins inside the sandbox as it likes: what reaches the kernel is what
is logged here.

`TraceLog` reads the log as it grows; `events(lines, ...)` turns lines into the records
the hidden tests read, with what autograder.crash_states needs to rebuild every state a
power cut could leave (the bytes written, file positions, the open flags):

    {"step": 0, "op": "open", "path": "/work/ab/cp.json.tmp", "fd": 3, "flags": "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC"}
    {"step": 0, "op": "write", "path": "/work/ab/cp.json.tmp", "fd": 3, "data": b"{...}", "offset": None}
    {"step": 0, "op": "fsync", "path": "/work/ab/cp.json.tmp", "fd": 3}
    {"step": 0, "op": "rename", "path": "/work/ab/cp.json.tmp", "dst": "/work/ab/cp.json"}

ops: open, write (offset: pwrite's, else None; sync: made durable by pwritev2's flags),
truncate (length), seek (position), fsync, fdatasync, sync (no path: every file), rename,
link, unlink, mkdir, rmdir, mknod (a name mknod or symlink made: no bytes written), close,
chdir (path: the process's current folder now; the step's code's, from the working folder or a folder in it on).
Every record also has "at": where its line ends in the log, so
that it can be ordered against what the grader saw at a given moment (`TraceLog.position()`).
Only calls that succeeded, and only those that touch the working folder or the other places
given (`roots`: where else a step may write), or leave them as the current folder.
"""
import codecs
import ctypes
import os
import re
import time

TRACED = ("open,openat,creat,write,pwrite64,writev,pwritev,pwritev2,sendfile,copy_file_range,ftruncate,truncate,"
          "lseek,fsync,fdatasync,sync,syncfs,rename,renameat,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat,"
          "rmdir,symlink,symlinkat,mknod,mknodat,close,chdir,fchdir")  # what else writes: autograder.untraced
WRITES = {"write": 0, "pwrite64": 0, "writev": 0, "pwritev": 0, "pwritev2": 0, "sendfile": 0, "copy_file_range": 2}
POSITIONED = {"pwrite64": 3, "pwritev": 3, "pwritev2": 3}  # the argument that is the write's offset
SYNCS = {"fsync": "fsync", "fdatasync": "fdatasync"}
# calls that make or remove one name: their op, the argument that is the path, the one with its folder's fd (or None)
NAMED = {"unlink": ("unlink", 0, None), "unlinkat": ("unlink", 1, 0), "mkdir": ("mkdir", 0, None),
         "mkdirat": ("mkdir", 1, 0), "rmdir": ("rmdir", 0, None), "mknod": ("mknod", 0, None),
         "mknodat": ("mknod", 1, 0), "symlink": ("mknod", 1, None), "symlinkat": ("mknod", 2, 1)}
PROC_FD = re.compile(r"^/proc/(?:self|thread-self|\d+)/fd/(\d+)$")
PER_WRITE_SYNC = {"RWF_DSYNC", "RWF_SYNC"}  # pwritev2's flags that make that write durable, as O_DSYNC, O_SYNC do
STRING_BYTES = 1024 * 1024  # strace prints this much of each write: a checkpoint of the lesson is far smaller
IOV_BASE = re.compile(r'iov_base=("(?:[^"\\]|\\.)*")')
LINE = re.compile(r"^(\d+) +(.*)$")
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 0x01, 0x02
# files a later Python runs as it starts (the site module): a .pth in a site-packages folder, sitecustomize, usercustomize
STARTUP_FILE = re.compile(r"(?:^|/)(?:[^/]*\.pth|sitecustomize\.py|usercustomize\.py)$")
STARTUP_HINTS = (".pth", "customize.py")  # cheap test of a line before parsing it
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
READ_CHUNK = 8 * 1024 * 1024
RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
CALL = re.compile(r"^(\w+)\((.*)\) += (.*)$", re.DOTALL)
UNFINISHED = " <unfinished ...>"
QUOTED = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
# write and pwrite64, the calls that carry a checkpoint's bytes, split by one match from the end of the line
WRITE_CALL = re.compile(r'^(write|pwrite64)\((\d+(?:<.*?>)?), (".*")(?:\.\.\.)?((?:, \d+){1,2})\) += (.*)$', re.DOTALL)


def strace_command(strace: str, log: str) -> list:
    """strace options: follow every process, stop only at the traced calls (seccomp-bpf), paths for fds."""
    return [strace, "-f", "-qq", "--seccomp-bpf", "-y", "-s", str(STRING_BYTES), "-e", "signal=none", "-e", f"trace={TRACED}",
            "-o", log]


def _unescape(text: str) -> bytes:
    """strace's C escapes (\\n, \\", \\344, \\xe4) undone, in C: a checkpoint's line is megabytes of them."""
    return codecs.escape_decode(text.encode("utf-8", "surrogateescape"))[0]


def split_arguments(text: str) -> list:
    """Top-level arguments of a strace call, quotes, brackets and <path> decorations kept whole."""
    parts, depth, start, index = [], 0, 0, 0
    while index < len(text):
        char = text[index]
        if char == '"':  # a string is skipped in one match: it may be the megabytes a write wrote
            match = QUOTED.match(text, index)
            index = match.end() if match else len(text)
            continue
        if char in "[{(<":
            depth += 1
        elif char in "]})>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
        index += 1
    if text[start:] or parts:
        parts.append(text[start:].strip())
    return parts


def bytes_argument(token: str) -> bytes | None:
    """The bytes of a quoted strace string ("a\\344b"...), or None."""
    if not token.startswith('"'):
        return None
    end = token.rfind('"')
    return _unescape(token[1:end]) if end > 0 else None


def string_argument(token: str) -> str | None:
    data = bytes_argument(token)
    return None if data is None else data.decode("utf-8", "replace")


# Ends the path of a descriptor whose file has no name any more (strace -y prints `3</work/x>(deleted)`). No path
# holds a NUL, so it never names a file, unlike a file a student calls "x (deleted)" (printed `3</work/x (deleted)>`).
DELETED = "\0(deleted)"


def fd_path(token: str) -> str | None:
    """The path in an fd decoration: `3</work/x>`, `AT_FDCWD</work>`, or `3</work/x>(deleted)` (ending in DELETED)."""
    start = token.find("<")
    named = token.removesuffix("(deleted)")
    if start < 0 or not named.endswith(">"):
        return None
    return _unescape(named[start + 1:-1]).decode("utf-8", "replace") + (DELETED if named != token else "")


def fd_number(token: str) -> int | None:
    number = token.split("<", 1)[0]
    return int(number) if number.isdigit() else None


def integer(token: str) -> int | None:
    try:
        return int(token, 0)
    except ValueError:
        return None


def octal(token: str) -> int | None:
    try:
        return int(token, 8)
    except ValueError:
        return None


def written_bytes(name: str, args: list) -> bytes | None:
    """What a write call was given (writev's buffers joined); None for sendfile and copy_file_range."""
    if name in ("write", "pwrite64") and len(args) > 1:
        return bytes_argument(args[1])
    if name in ("writev", "pwritev", "pwritev2") and len(args) > 1:
        return b"".join(bytes_argument(token) or b"" for token in IOV_BASE.findall(args[1]))
    return None


class TraceLog:
    """strace's log file, read as it grows; complete lines only, split calls joined again."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.partial = b""
        self.unfinished = {}  # pid -> the start of a call another thread interrupted
        self.pending = []  # lines already read, past the last mark
        self.freed = 0  # the start of the log, up to here, is a hole (discard_read)

    def _new_lines(self) -> list:
        """[(pid, text, offset)], offset: where the line (the resumed half, for a split call) ends in the log."""
        lines = []
        try:
            log = open(self.path, "rb")
        except FileNotFoundError:
            return lines
        with log:
            log.seek(self.offset)
            while data := log.read(READ_CHUNK):  # a step's log can be 100 MB: no copies of it all at once
                lines += self._lines_of(data)
        return lines

    def _lines_of(self, data: bytes) -> list:
        """The complete lines in the log's next bytes `data`; a line cut off at the end waits in `partial`."""
        position = self.offset - len(self.partial)
        self.offset += len(data)
        data = self.partial + data
        *complete, self.partial = data.split(b"\n")
        lines = []
        for raw in complete:
            position += len(raw) + 1
            match = LINE.match(raw.decode("utf-8", "surrogateescape"))
            if not match:
                continue
            pid, text = int(match.group(1)), match.group(2)
            if text.endswith(UNFINISHED):
                self.unfinished[pid] = text[:-len(UNFINISHED)]
                continue
            resumed = RESUMED.match(text)
            if resumed:
                text = self.unfinished.pop(pid, resumed.group(1) + "(") + resumed.group(2)
            lines.append((pid, text, position))
        return lines

    def position(self) -> int:
        """How far strace has written: a traced call that returned before this moment ends at or before it."""
        try:
            return os.stat(self.path).st_size
        except FileNotFoundError:
            return 0

    def read_until(self, mark: str, mark_pid: int, deadline: float) -> tuple:
        """(lines, found): every new line up to the one where `mark_pid` opened `mark`."""
        lines = []
        needle = f'"{mark}"'
        new, self.pending = self.pending, []
        while True:
            new += self._new_lines()
            for number, (pid, text, _) in enumerate(new):
                if pid == mark_pid and needle in text:
                    self.pending = new[number + 1:]  # past the mark: for the next read
                    return lines + new[:number], True
            lines, new = lines + new, []
            if time.monotonic() > deadline:
                return lines, False
            time.sleep(0.002)

    def discard_read(self) -> bool:
        """Frees the memory (or disk) that the part of the log already read takes, as a hole in the file: its size
        stays, and strace writes on at its own offset. False where the file system cannot punch holes."""
        try:
            fd = os.open(self.path, os.O_WRONLY)
        except OSError:
            return False
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, ctypes.c_int64(0),
                              ctypes.c_int64(self.offset)) != 0:
                return False
        except AttributeError:  # a C library without fallocate
            return False
        finally:
            os.close(fd)
        self.freed = self.offset
        return True

    def read_available(self) -> list:
        lines, self.pending = self.pending + self._new_lines(), []
        return lines


def _within(path: str | None, roots) -> bool:
    return path is not None and any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def events(lines, step, workdir: str, skip_pid: int | None = None, roots=(), guarded=(),
           attempts: list | None = None) -> list:
    """The records of `lines` (from processes other than `skip_pid`) that touch `workdir` or `roots`. The names the
    calls tried to write or make (opened for writing, a rename's, link's or symlink's new name, removed, a new folder),
    whether or not the call succeeded, go into `attempts` when they are files a later Python would run as it starts
    (STARTUP_FILE, anywhere) or lie in one of the `guarded` folders: in the sandbox those places are read-only, on the
    student's machine they are not."""
    roots = (workdir, *roots)
    hints = (*STARTUP_HINTS, *guarded)
    cwd = {}
    moved = set()  # processes whose changes of the current folder are recorded
    found = []
    last_pid = None  # whose call found[-1] is

    def resolve(pid, path, base=None):
        if path is None:
            return None
        return os.path.normpath(os.path.join(base or cwd.get(pid, workdir), path))

    for pid, text, at in lines:
        if pid == skip_pid:
            continue
        write = WRITE_CALL.match(text)
        call = write or CALL.match(text)
        if not call:
            continue
        if write:
            name, result = write.group(1), write.group(5).strip()
            args = [write.group(2), write.group(3), *write.group(4).split(", ")[1:]]
        else:
            name, args, result = call.group(1), split_arguments(call.group(2)), call.group(3).strip()
        for token in args:
            if token.startswith("AT_FDCWD<"):
                cwd[pid] = fd_path(token)
        if attempts is not None and any(hint in text for hint in hints):
            attempts += [path for path in _written_names(name, args, pid, resolve)
                         if STARTUP_FILE.search(path) or _within(path, guarded)]
        if result.startswith("-1") or result.startswith("?"):
            continue
        fd = fd_number(args[0]) if args else None
        record = None
        if name in ("open", "openat", "creat"):
            path_index = 1 if name == "openat" else 0
            base = fd_path(args[0]) if name == "openat" and len(args) > 1 else None
            opened = fd_path(result) or resolve(pid, string_argument(args[path_index]), base)
            flags = "O_CREAT|O_WRONLY|O_TRUNC" if name == "creat" else (args[path_index + 1]
                                                                        if len(args) > path_index + 1 else "")
            record = {"op": "open", "path": opened, "flags": flags, "fd": fd_number(result)}
            given = path_index + (1 if name == "creat" else 2)  # the mode a file it creates is given (octal)
            if "O_CREAT" in flags and len(args) > given:
                record["mode"] = octal(args[given])
        elif name in WRITES and len(args) > WRITES[name]:
            path = fd_path(args[WRITES[name]])
            offset = integer(args[POSITIONED[name]]) if name in POSITIONED and len(args) > 3 else None
            record = {"op": "write", "path": path, "fd": fd_number(args[WRITES[name]]), "size": integer(result),
                      # pwritev2 at offset -1 writes at the file's position and moves it, as write does
                      "offset": None if offset == -1 and name == "pwritev2" else offset,
                      # pwritev2's RWF_DSYNC, RWF_SYNC: this one write is durable when it returns (man pwritev2)
                      "sync": name == "pwritev2" and len(args) > 4 and bool(PER_WRITE_SYNC & set(args[4].split("|"))),
                      # how many bytes write and pwrite64 were asked to write: more than `size` is a short write
                      "wanted": integer(args[2]) if name in ("write", "pwrite64") and len(args) > 2 else None}
            if _within(path, roots):  # only these bytes are ever needed: decode nothing else
                data = written_bytes(name, args)
                record["data"] = None if data is None else data[:record["size"] or 0]
        elif name == "ftruncate" and len(args) == 2:
            record = {"op": "truncate", "path": fd_path(args[0]), "fd": fd, "length": integer(args[1])}
        elif name == "truncate" and len(args) == 2:
            record = {"op": "truncate", "path": resolve(pid, string_argument(args[0])), "fd": None,
                      "length": integer(args[1])}
        elif name == "lseek" and args:
            record = {"op": "seek", "path": fd_path(args[0]), "fd": fd, "position": integer(result)}
        elif name in SYNCS and args:
            record = {"op": SYNCS[name], "path": fd_path(args[0]), "fd": fd}
        elif name == "sync" or (name == "syncfs" and args and _within(fd_path(args[0]), (workdir,))):
            # syncfs makes durable only the file system its descriptor is on: the working folder's, or nothing here
            found.append({"step": step, "op": "sync", "path": None, "at": at})
        elif name == "close" and args:
            record = {"op": "close", "path": fd_path(args[0]), "fd": fd}
        elif name in ("rename", "renameat", "renameat2", "link", "linkat"):
            if name in ("rename", "link") and len(args) >= 2:
                source, target = resolve(pid, string_argument(args[0])), resolve(pid, string_argument(args[1]))
            elif len(args) >= 4:
                source = resolve(pid, string_argument(args[1]), fd_path(args[0]))
                target = resolve(pid, string_argument(args[3]), fd_path(args[2]))
            else:
                continue
            record = {"op": "link" if name.startswith("link") else "rename", "path": source, "dst": target}
            through = PROC_FD.match(source or "") if record["op"] == "link" else None
            if through:  # linkat of /proc/self/fd/N (an O_TMPFILE file given a name): descriptor N's file
                record["fd"] = int(through.group(1))
        elif name in NAMED:
            op, index, folder = NAMED[name]  # the argument that is the path, and the one its folder's fd
            if len(args) <= index:
                continue
            path = resolve(pid, string_argument(args[index]), fd_path(args[folder]) if folder is not None else None)
            record = {"op": op, "path": path}
            if name == "unlinkat" and len(args) > 2 and "AT_REMOVEDIR" in args[2]:
                record["op"] = "rmdir"
        elif name in ("chdir", "fchdir") and args:
            before = cwd.get(pid)
            cwd[pid] = resolve(pid, string_argument(args[0])) if name == "chdir" else fd_path(args[0]) or before
            # the student's code's, from the working folder on (the driver's own come into it), and any after them
            if _within(before, (workdir,)) or pid in moved:
                moved.add(pid)
                record = {"op": "chdir", "path": cwd[pid]}
        if record and (record["op"] == "chdir" or _within(record["path"], roots) or _within(record.get("dst"), roots)):
            record = {"step": step, **record, "at": at}
            if found and pid == last_pid and _continues(found[-1], record):
                merged = found[-1]
                if not isinstance(merged["data"], bytearray):  # grown in place: n small writes cost O(n), not O(n²)
                    merged["data"] = bytearray(merged["data"])
                merged["data"] += record["data"]
                wanted = (None if None in (merged.get("wanted"), record.get("wanted"))
                          else merged["wanted"] + record["wanted"])
                merged.update(size=merged["size"] + record["size"], wanted=wanted, at=at)
            else:
                found.append(record)
            last_pid = pid
    for record in found:
        if isinstance(record.get("data"), bytearray):
            record["data"] = bytes(record["data"])
    return found


def _written_names(name: str, args: list, pid: int, resolve) -> list:
    """The paths the call named as ones it writes, makes or removes: opened for writing, a rename's, link's or
    symlink's new name (a rename's old one too), an unlink's, mkdir's or rmdir's."""
    if name in ("open", "openat", "creat"):
        index = 1 if name == "openat" else 0
        flags = "O_CREAT" if name == "creat" else (args[index + 1] if len(args) > index + 1 else "")
        named = [(args[index], args[0] if name == "openat" else None)] if any(f in flags for f in WRITE_FLAGS) else []
    elif name in ("link", "symlink"):
        named = [(args[1], None)] if len(args) >= 2 else []
    elif name == "rename":
        named = [(args[0], None), (args[1], None)] if len(args) >= 2 else []
    elif name == "linkat":
        named = [(args[3], args[2])] if len(args) >= 4 else []
    elif name in ("renameat", "renameat2"):
        named = [(args[1], args[0]), (args[3], args[2])] if len(args) >= 4 else []
    elif name == "symlinkat":
        named = [(args[2], args[1])] if len(args) >= 3 else []
    elif name in NAMED and name not in ("symlink", "symlinkat"):  # unlink, mkdir, rmdir, mknod and their *at forms
        _, index, folder = NAMED[name]
        named = [(args[index], args[folder] if folder is not None else None)] if len(args) > index else []
    else:
        named = []
    paths = [resolve(pid, string_argument(path), fd_path(folder) if folder else None) for path, folder in named]
    return [path for path in paths if path]


def _continues(previous: dict, record: dict) -> bool:
    """`record` writes on where `previous`, the same process's last call, wrote to the same file (write after write,
    or pwrite at the offset where the last pwrite ended): one write to the crash-state model (a crash between them
    leaves a prefix, which it already tries), and a checkpoint written a byte or a line at a time stays a few
    events, not thousands that crowd out the rename and fsyncs after them (sandbox.MAX_EVENTS_PER_STEP)."""
    whole_writes = (record["op"] == previous["op"] == "write" and record["fd"] == previous["fd"]
                    and not record["sync"] and not previous["sync"]  # each synced write is durable on its own
                    and record["path"] == previous["path"]
                    and record.get("data") is not None and previous.get("data") is not None
                    and record["size"] == len(record["data"]) and previous["size"] == len(previous["data"]))
    if not whole_writes:
        return False
    if previous["offset"] is None:
        return record["offset"] is None
    return record["offset"] == previous["offset"] + previous["size"]
