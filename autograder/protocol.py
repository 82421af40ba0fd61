"""What crosses the sandbox's wall, named once for both sides (autograder.sandbox outside, autograder.child inside).

grader -> zygote   one `Job` per line on the zygote's stdin (JSON);
zygote -> grader   JSON lines on its stdout: {"ready": true} once, then per job {"pid": n} and
                   {"pid": n, "status": {"exit_code": n} | {"signal": n}, with "left": [Left, ...]};
step -> grader     once, before any student code: the hand-off socket gets the scenario's token, with the
                   step's listening SMTP socket (SCM_RIGHTS); then HTTP POSTs on the Unix socket, to
                   /s/<token>/<Endpoint>, each a JSON object; an `Event` reports progress.

The values are plain strings on the wire (the enums below are str subclasses), so both sides compare
them with `==` and a JSON reader sees nothing unusual. Nothing here is trusted because it was received:
the grader checks every field it reads (autograder.sandbox).
"""
import signal
from dataclasses import dataclass
from enum import Enum
from typing import TypedDict


class _Name(str, Enum):
    """A name on the wire: prints and formats as its value (as 3.11's StrEnum does; 3.10 has none)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


ZYGOTE_TOKEN = "zygote"  # in the path of the zygote's own hello, the one request outside any scenario
INTERRUPT = signal.SIGUSR1  # grader -> a step's pid 1: interrupt the student's process (SIGINT, as Jupyter does)


class Endpoint(_Name):
    HELLO = "hello"  # the zygote, once it has started: the kernel names its pid to the grader
    EVENT = "event"
    FAILURE = "failure"  # the driver itself failed (a traceback)
    TOOL = "tool"  # one of the course's tools (what execute_tool calls), run by the grader
    MODEL = "model"  # the offline model's answer to one request ({"route", "body"}), given by the grader
    LOOKUP = "lookup"  # lookup_effect (lesson 4): the grader asks its own service by idempotency key
    STANDIN = "standin"  # + "/<name>": the grader's own save_checkpoint, load_checkpoint or reconcile


class ModelRoute(_Name):
    """Which client a model request came through."""
    GIVEN = "given"  # the client the scenario passed in to this step
    EARLIER = "earlier"  # one it passed in to an earlier step in the same process
    DEFAULT = "default"  # any other, such as one from course.make_client()


class EventKind(_Name):
    CELL = "cell"  # a definition cell is about to run (only when the grader asks for one report per cell)
    STEP = "step"
    # a mail tool or a lookup went to a server the student's code named, past the grader (child._mail_elsewhere)
    MAIL_ELSEWHERE = "mail_elsewhere"


class EventStatus(_Name):
    START = "start"
    DONE = "done"


class CellStatus(_Name):
    OK = "ok"
    RAISED = "raised"
    TIMEOUT = "timeout"  # decided by the grader
    DIED = "died"  # decided by the grader


class StepStatus(_Name):
    # reported by the step's process
    RETURNED = "returned"
    RAISED = "raised"
    MISSING = "missing"  # the notebook defines no such name
    UNSUPPORTED = "unsupported"  # returned something JSON cannot hold
    # decided by the grader
    NOT_RUN = "not_run"
    TIMEOUT = "timeout"
    DIED = "died"
    CRASHED_BY_GRADER = "crashed_by_grader"


REPORTED_STATUSES = frozenset({StepStatus.RETURNED, StepStatus.RAISED, StepStatus.MISSING, StepStatus.UNSUPPORTED})


class Left(_Name):
    """What a job left still running when the grader stopped watching it (Job.linger after its steps returned), or
    armed in the interpreter, to run at what a kernel does in later cells (autograder.armed)."""
    THREADS = "threads"  # threads of the student's process
    PROCESSES = "processes"  # processes it started and did not wait for
    SCHEDULED = "scheduled"  # what was to run later: on the kernel's event loop (call_later, a task), or an alarm
    AUDIT_HOOK = "audit_hook"  # sys.addaudithook
    GC_CALLBACK = "gc_callback"  # in gc.callbacks
    TRACER = "tracer"  # a profile or trace function: sys.setprofile, sys.settrace, threading's
    REVIVING_GARBAGE = "reviving_garbage"  # garbage whose finalizer makes more of it
    CPU_TIMER = "cpu_timer"  # setitimer's ITIMER_PROF or ITIMER_VIRTUAL: goes off as the kernel uses CPU time
    INTERPRETER_HOOK = "interpreter_hook"  # an import finder or path hook, sys's or threading's hooks, __import__...
    SHELL_HOOK = "shell_hook"  # IPython's: a custom exception handler, transformers, formatters, event callbacks...
    TOOL_AT_END = "tool_at_end"  # a tool called by what ran as the kernel shut down (atexit, finalizers, logging...)
    STARTUP_FILE = "startup_file"  # a file a later Python runs as it starts (fs_trace.STARTUP_FILE), written or tried
    MAILDIR = "maildir"  # a file of the mail server's Maildir written, made or removed (or tried) around SMTP


class PhaseKind(_Name):
    BEFORE = "before"  # the process has not said hello yet
    DEFINING = "defining"  # running the definition cells (which one, the grader learns only when it asks)
    CELL = "cell"
    STEP = "step"


@dataclass(frozen=True)
class Phase:
    """Where the running process is, as the grader last heard."""
    kind: PhaseKind
    cell: str | None = None
    step: int | None = None

    def __str__(self) -> str:
        detail = self.cell if self.kind is PhaseKind.CELL else self.step if self.kind is PhaseKind.STEP else None
        return str(self.kind) if detail is None else f"{self.kind} {detail}"


BEFORE = Phase(PhaseKind.BEFORE)
DEFINING = Phase(PhaseKind.DEFINING)


class Cell(TypedDict, total=False):
    name: str
    source: str
    ran: int  # how many of the notebook's code cells a kernel has run once it has run this one (Job.history)
    # the source compiled once by the grader (autograder.sandbox.compiled_cells): marshal's bytes in base64, and the
    # co_filename they were compiled under; a step's process uses them only if that is the name it gives the cell
    code: str
    file: str
    future: int  # the __future__ flags `code` was compiled with: those the cells before it turned on


class Step(TypedDict, total=False):
    kind: str  # "call" or "value"
    name: str
    # an item {"$path": relative} becomes a path in the working folder ({"$path": relative, "relative": True}: that
    # relative path, a str, as a student may pass it; "relative": "Path": as a relative Path), {"$client": ...} the
    # client, and
    # {"$lookup": {"answers": {key: text}, "down": bool}} a lookup(name, key) that answers as such a service would,
    # and {"$python": value} the value with the marks of child.python_value turned into what JSON cannot hold
    args: list
    kwargs: dict
    timeout: float
    quick_timeout: float
    report_args: bool  # report the arguments as they are after the call
    file_size_limit: int
    batch: str  # consecutive steps with the same batch share one process
    replies: list  # read by the grader only: the shape of each reply the model gives the step (course.model.shaped)
    calls: list  # read by the grader only: the tool calls ({"name", "input"}) a "planned" model asks for, in order
    # read by the grader only: the step's model call number n (from 1) and every one after it are answered with the
    # API's 529 overloaded_error, which the client raises (an APIStatusError), as the notebook's crashing_client raises
    model_fails_from: int
    # read by the grader only: the step's save_checkpoint call number n (from 1), a stand-in's, and every one after it
    # raise OSError (ENOSPC): the disk is full
    saves_fail_from: int
    read_before: list  # read by the grader only: files whose text it reads as the step begins (Outcome.read_before)
    # read by the grader only: key -> what lookup_effect answers for the call with that key, if the mail server has it
    # (the result the service keeps: "" for one, which no email's is)
    lookup_answers: dict
    # the grader's own reconcile (a stand-in) edits the checkpoint it is given and returns it, as the reference's (and
    # most students' own) does, rather than returning a new one: run_agent must work with both
    reconcile_in_place: bool


class Job(TypedDict):
    id: str
    isolated: bool
    token: str
    socket: str
    handoff: str  # the hand-off socket's path
    maildir: str  # the grader's mail server's Maildir, as the sandbox sees it (shown read-only to the step)
    agent_tools: list  # tool names in the scenario's checkpoints that the course does not have
    student_pid: int  # the student's process's pid in the step's namespace (the same all session, as a kernel's)
    argv: list  # its sys.argv (a kernel's)
    linger: float  # seconds its threads, then the processes it left, are still watched after it returned
    workdir: str
    env: dict
    limits: dict
    cells: list  # of Cell
    report_cells: bool
    history: list  # the notebook's code cells, as a kernel's In has them (Submission.history)
    standins: list
    steps: list  # of [index, Step]
    scratch: dict  # {"/tmp": where the scenario's /tmp is kept in the sandbox, "/dev/shm": ...}
    under_tmp: list  # the interpreter's folders under /tmp, bound again in the scenario's /tmp
    tmp_mail: str  # where in /tmp the Maildir is shown
    real_proc: int  # not sent: set in the step, a descriptor of the sandbox's real /proc (child._cover_proc)
