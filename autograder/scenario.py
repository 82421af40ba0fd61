"""What one grading session puts the student's code in, and what comes back: plain data shared by
the sandbox's parts (autograder.sandbox runs a `Scenario` and returns an `Outcome`)."""
import json
from collections import Counter
from dataclasses import dataclass, field

from .protocol import BEFORE


@dataclass
class Limits:
    memory: int = 1024 * 1024 * 1024  # bytes of address space on top of what the zygote already maps
    cpu: int = 60  # seconds of CPU time for one step
    file_size: int = 64 * 1024 * 1024
    # processes and threads in the step's own user namespace (the lesson needs one; as many as a root grader's
    # whole sandbox may have, less the grader's own, so that both grade a submission that starts a few alike)
    processes: int = 56
    cgroup_tasks: int = 64  # a root grader's whole sandbox: strace, bwrap, the zygote, a step's processes and threads
    files: int = 256  # open at once
    tmp_size: int = 128 * 1024 * 1024  # a scenario's /tmp and /dev/shm together
    work_size: int = 256 * 1024 * 1024  # every working folder of the session together


@dataclass
class SubmissionTrouble:
    """What went wrong with one submission so far, carried from scenario to scenario."""
    bad_cells: dict = field(default_factory=dict)  # cell -> its report: its definition hangs or kills the process
    hung: set = field(default_factory=set)  # functions that ran out of time once: later calls get less
    report_cells: bool = False  # a definition hung or killed a process: each cell is reported before it runs
    kinds: Counter = field(default_factory=Counter)  # autograder.trouble.KINDS -> how often it was seen


class FileData(bytes):
    """A file's bytes (a value of Scenario.files) written with other mode bits than 0o644, such as 0o000 for a
    checkpoint the step cannot read: the step runs without capabilities, so they bind a root grader's too. With
    `mtime_ns`, the file's modification time is that (the notebook's own files, saved before grading began)."""

    def __new__(cls, data: bytes, mode: int = 0o644, mtime_ns: int | None = None):
        made = super().__new__(cls, data)
        made.mode, made.mtime_ns = mode, mtime_ns
        return made

    def __reduce__(self):
        return FileData, (bytes(self), self.mode, self.mtime_ns)


class Appended(bytes):
    """Bytes the grader adds at the end of a file in place, through O_APPEND, as another process appends a record to a
    ledger (a value of Scenario.files_before): a descriptor the step's code keeps open still points at that file."""


@dataclass
class Scenario:
    """One situation to put the student's code in, described as data."""
    name: str
    steps: list  # of protocol.Step: {"kind": "call"|"value", "name": ..., "args": [...], "kwargs": {...}, ...}
    # Each step runs in a fresh process, except that consecutive steps with the same "batch" share one:
    # for calls judged together (one point for all), where one call cannot learn from another what to answer.
    files: dict = field(default_factory=dict)  # relative path (may be nested) -> text, bytes or FileData, written first
    watch: str | None = None  # checkpoint file read by the grader at each model and tool call
    # or "endless": always asks for one more list_dir; or "planned": asks for each step's "calls" in turn, then ends
    model: str = "scripted"
    # {"after_tool": name}, {"before_tool": name} or {"before_tool_call": n}: the grader kills the step;
    # {"interrupt_after_tool": name} or {"interrupt_at_model_call": n} (the step's n-th): it interrupts it (SIGINT)
    crash: dict | None = None
    standins: tuple = ()  # names replaced by the grader's own versions after the student's code is defined
    # delivered before the first step: send_email inputs, or (input, idempotency key) pairs (sent with that key)
    emails_before: tuple = ()
    service_down: bool = False  # the mail server cannot be reached: sends fail, lookups raise ServiceUnavailable
    ledgers: tuple = ()  # files (lesson 4's ledgers) whose text the grader reads at each tool call
    read_after: tuple = ()  # more relative paths whose text files_after holds (None if missing)
    read_left: bool = False  # files_after also holds every regular file left in the folder (what a stray file is)
    # step index -> {relative path: content as in files, None (the file removed) or Appended}: changed, over what the
    # earlier steps left, just before that step's process starts (the first step of a batch), or between two steps of
    # one process as the later one begins, while its process waits (at Outcome.started_at): the grader's own change,
    # which strace does not see (a model of the file system adds it there, as the stand-in save's "replace")
    files_before: dict = field(default_factory=dict)
    independent_steps: bool = False  # a step that hangs or dies does not cancel the later ones
    step_timeout: float = 5.0
    # ANTHROPIC_API_KEY set (a made-up key), as when the student has one: code that behaves only without a key is
    # seen. With COURSE_OFFLINE=1, so that make_client() stays offline; only where no step calls the model, so that
    # code that behaves only with a key is seen too (elsewhere)
    api_key: bool = False
    meta: dict = field(default_factory=dict)  # what the checks need to know (ids, expected values)


@dataclass
class Outcome:
    scenario: Scenario
    steps: list  # one dict per step: status, value / error / detail, args_after, seconds
    # "at": where strace's log ended when the grader got the call, to order it against fs_events
    # {"step", "client" ("given" | "earlier" | "make_client"), "messages", "params" (the rest of the request), "status", "reply",
    #  "snapshot", "at"}
    model_calls: list
    tool_calls: list  # {"step", "name", "input", "key", "output", "snapshot", "ledgers" ({path: text}), "at"}
    standin_calls: list
    deliveries: list  # the phase in which each email arrived
    delivered_ids: list  # the Message-ID of each email, in the same order (a keyed one: <key@...>)
    lookups: list  # {"step", "name", "key", "answer" (text or None), "unavailable" (bool), "at"}
    files_after: dict  # relative path -> text (None if missing) for scenario.files and scenario.watch
    cells: dict  # cell name -> {"status", "error"}: as it first raised in one of the processes, else as last reported
    workdir: str  # where the steps ran, as the student's code saw it; paths in fs_events start with it
    fs_events: list = field(default_factory=list)  # autograder.fs_trace records, in the order the kernel saw them
    files_by_step: list = field(default_factory=list)  # per step: sorted relative paths of the regular files after it
    # per step: where strace's log ended when it reported back (its function returned or raised), else None;
    # what a thread or process it left behind did comes after
    returned_at: list = field(default_factory=list)
    # per step: where strace's log ended when its call began (what came before defined the cells), else None
    started_at: list = field(default_factory=list)
    # per step: files in the working folder that defining the cells created (a log a cell opens), up to that step
    defined_files: list = field(default_factory=list)
    # {"step": the last step of a process, "left": [protocol.Left], "files": Left.STARTUP_FILE's paths, if any}: what
    # was still running when the grader stopped watching it after its steps returned, or armed, or written to run at
    # a later Python's start. It would go on in a notebook (send one more email, say): no check may certify what this
    # scenario's outcome shows (autograder.judge)
    left_running: list = field(default_factory=list)
    # step index -> {relative path: text, None if missing}: the files a step's "read_before" names, as it began
    read_before: dict = field(default_factory=dict)
    # the steps that sent mail, or asked by key, through a mail server the student's code named, which the grader does
    # not see: no check may certify what this scenario's outcome shows either (autograder.judge)
    mail_elsewhere: list = field(default_factory=list)

    def answered_model_calls(self) -> list:
        return [c for c in self.model_calls if c["status"] == 200]

    def student_tool_calls(self, step: int | None = None) -> list:
        return [c for c in self.tool_calls if step is None or c["step"] == step]

    def emails_during_steps(self) -> int:
        return sum(1 for phase in self.deliveries if phase != str(BEFORE))


def tool_names(value) -> set:
    """The tools that calls in `value` name ({"name": str, "input": dict}: a tool_use block, a pendingToolUse, a
    ledger's record), looking into lists, dicts and text that holds JSON (a checkpoint file, a ledger's lines)."""
    found = set()

    def look(item):
        if isinstance(item, dict):
            if isinstance(item.get("name"), str) and isinstance(item.get("input"), dict):
                found.add(item["name"])
            for inner in item.values():
                look(inner)
        elif isinstance(item, list):
            for inner in item:
                look(inner)
        elif isinstance(item, (str, bytes)) and item[:1] in ("{", "[", b"{", b"["):
            for text in (item, *item.splitlines()):  # one JSON value, or one per line
                try:
                    look(json.loads(text))
                    return
                except ValueError:
                    continue

    look(value)
    return found
