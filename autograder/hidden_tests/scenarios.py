"""The situations the hidden tests put a submission in, as data for the sandbox.

Every grading run draws them afresh from its own seed (`build(max_turns, rng)` with a
`random.Random(seed)`; the judge records the seed with the verdict, so `--seed N`
draws the same run again): the task's wording, the checkpoint's folder and file name
(nested, never the default checkpoint.json; given from the root, or relative to the current folder
where one process saves, loads or runs through several), the counters in every checkpoint, the
tool-call ids and inputs, and which unheard-of tools stand in for "any other tool".
A submission can hard-code none of it.

The checkpoints reconcile and recovery_action are given, the dangling calls in them, and the
broken files load_checkpoint is given are drawn with Hypothesis (autograder.hidden_tests.generated)
from a seed the run's random.Random draws: every kind of dangling call and every kind of broken
file in every run, in new shapes each time.
"""
import copy
import json
import string

from course import load_sample
from course.model import ENDING_SHAPES, shaped
from hypothesis import strategies as st

from autograder.sandbox import Scenario
from course.checks import TOOL_OUTPUT_SHAPES, lengthened, with_failed_result

from . import generated
from .generated import (DANGLING, counted_as_run, EMAIL_TASKS, FOLDER, MEETING_TASKS, UNHEARD_OF, alternating, asked_again,
                        checkpoints)


FOLDERS = ("runs", "state", "agent-data", "work", "ckpt", "sessions", "jobs", "var", "data", "tmp-agent")

AGENT_TIMEOUT = 20.0  # seconds for one run_agent call (at most ten turns here, on a busy machine)
AGENT_QUICK_TIMEOUT = 8.0  # once run_agent has run out of time
FILE_SIZE_LIMIT = 64 * 1024  # bytes: the "disk" fills up half-way through the big save
STANDINS = ("save_checkpoint", "load_checkpoint", "reconcile")
FOLDER_FILE = "notes.txt"  # what the folder at a broken checkpoint's path holds
DEFAULT_FILE = "checkpoint.json"  # the notebook's CHECKPOINT_PATH
# the damage besides half a file and another version that a run_agent's resume meets (text, all of them)
AGENT_BROKEN_KINDS = ("empty", "trailing_data", "text_version", "not_object", "missing_fields")
FAILED_OUTPUTS = ("错误：文件不存在：notes/week.md", "错误：权限不足，无法读取 notes/plan.md",
                  "错误：读取超时（30 秒）")
CLIENT = {"$client": True}  # a client of its own, not the one make_client() returns
WITHOUT_CLIENT = object()  # run_agent called without a client argument


class Draw:
    """Everything random in one grading run, from one seeded random.Random."""

    def __init__(self, rng):
        self.rng = rng

    def letters(self, length: int) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(length))

    def tool_id(self) -> str:
        alphabet = string.ascii_letters + string.digits
        return "toolu_01" + "".join(self.rng.choice(alphabet) for _ in range(22))

    def folder(self, least: int = 1) -> str:
        """A nested folder such as "runs/qkzv/mwe" (`least` to three levels)."""
        parts = [self.rng.choice(FOLDERS)] + [self.letters(self.rng.randint(3, 6))
                                             for _ in range(self.rng.randint(least - 1, 2))]
        return "/".join(parts)

    def file(self, prefix: str = "", folder: str | None = None) -> str:
        return f"{folder or self.folder()}/{prefix}{self.letters(8)}.json"

    def bystanders(self, folder: str) -> dict:
        """kind -> (name, content): files of others in `folder` ("" or ending in "/"), which a save there must leave
        as they are: another task's temporary file, half written (its save is under way), and a user's own file
        that ends in .tmp too."""
        other = json.dumps(self.sample("cpA", self.rng.choice(MEETING_TASKS)), ensure_ascii=False)
        return {"other_task": (f"{folder}{self.letters(7)}.json.{self.letters(8)}.tmp",
                               other[:self.rng.randint(1, len(other) - 1)]),
                "user": (f"{folder}{self.letters(5)}.tmp", "用户自己的草稿，不是检查点。\n")}

    def forms(self, count: int) -> list:
        """How each of `count` runs is given its path (see `path`): both ways every time, in drawn order."""
        forms = ["absolute", "relative"]
        return self.rng.sample(forms + self.rng.choices(forms, k=count - 2), count)

    def two_wordings(self, pool) -> tuple:
        return tuple(self.rng.sample(pool, 2))

    def sample(self, name: str, task: str) -> dict:
        """A lesson sample checkpoint with this task's wording, fresh counters and a fresh pending id."""
        cp = load_sample(name)
        cp["task"] = task
        cp["messages"][0]["content"] = task
        # More model calls than the history shows (a history may be trimmed): counting messages is no counter.
        cp["turns"] = sum(m["role"] == "assistant" for m in cp["messages"]) + self.rng.randint(1, 12)
        cp["tokensUsed"] = self.rng.randint(9_000, 60_000)
        if cp["pendingToolUse"]:
            cp = self.with_pending(cp, cp["pendingToolUse"]["name"], cp["pendingToolUse"]["input"])
        return cp

    def with_pending(self, cp: dict, name: str, tool_input: dict) -> dict:
        """`cp` (saved at point A) with its dangling call replaced by `name(tool_input)` under a fresh id."""
        tool_id = self.tool_id()
        block = next(b for b in cp["messages"][-1]["content"] if b["type"] == "tool_use")
        block.update(id=tool_id, name=name, input=dict(tool_input))
        cp["pendingToolUse"] = {"id": tool_id, "name": name, "input": dict(tool_input)}
        return cp


def before_sending(cp: dict) -> dict:
    """cpC one turn earlier: the email task at save point B, just before the model asks for send_email."""
    cp["messages"].pop()
    cp["turns"] -= 1
    cp["pendingToolUse"] = None
    return cp


USER_REMARKS = ("另外，结论请按日期排序。", "顺便把每条结论的负责人也列出来。", "写短一点，三句话以内。")
MISSING_NOTE = "meeting-08-31.md"  # listed by list_dir, absent from the workspace: reading it is an ordinary failure


def with_missing_note(cp: dict) -> dict:
    """cp whose list_dir result also lists MISSING_NOTE, so that the resumed run's read of it fails."""
    for message in cp["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and "meeting-08-25.md" in block["content"]:
                block["content"] += "\n" + MISSING_NOTE
    return cp


def closing_replies(rng) -> list:
    """The model's closing reply in every shape a reply without a tool call comes in (course.model.ENDING_SHAPES:
    several text blocks, no content at all, cut off...), in shuffled order."""
    reply = {"content": [{"type": "text", "text": "本周的结论已经整理好了。"}], "stop_reason": "end_turn",
             "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}
    return [shaped(reply, shape) for shape in rng.sample(ENDING_SHAPES, len(ENDING_SHAPES))]


def finished(cp: dict, closing: dict) -> dict:
    """cp one step on, the task done: the model's closing reply (a reply body) saved at point A, nothing pending."""
    cp["messages"].append({"role": "assistant", "content": closing["content"]})
    cp["turns"] += 1
    return cp


def output_shapes(rng, kinds: list) -> list:
    """The "outputs" of each reconcile_read_only step (kinds: its cases' kinds): a long output on a read_file and on
    another tool (each has a point of its own), an empty one, one that mentions an error and one that begins with an
    error in English (a log), on runs that succeed."""
    reads = [number for number, kind in enumerate(kinds) if kind == "read_file"]
    others = [number for number, kind in enumerate(kinds) if kind not in ("read_file", "failing_rerun")]
    long = {rng.choice(reads), rng.choice(others)}
    shapes = dict.fromkeys(long, "long")
    judged = ("empty", "mentions_error", "english_error")
    shapes.update(zip(rng.sample([n for n in reads + others if n not in long], len(judged)), judged))
    return [[shapes[number]] if number in shapes else [] for number in range(len(kinds))]


def drawn(rng, strategy):
    """One value of a Hypothesis strategy, drawn from a seed this run's random.Random gives."""
    return copy.deepcopy(generated.examples(strategy, 1, rng.getrandbits(64))[0])


def call(name: str, *args, **kwargs) -> dict:
    return {"kind": "call", "name": name, "args": list(args), "kwargs": kwargs}


def path(name: str, form: str = "absolute") -> dict:
    """`name` in the working folder, passed as a Path from the root ("absolute") or as the str `name` ("relative",
    with its folders: a save that changes the current folder sends the next one elsewhere). The notebook's own check
    saves to the str "checkpoint.json": in lesson 3 a path may be either."""
    return {"$path": name, "relative": True} if form == "relative" else {"$path": name}


def without_model(scenario: Scenario) -> bool:
    """Whether no step of `scenario` calls the model (run_agent does): such a scenario runs with a made-up API key
    (Scenario.api_key)."""
    return not any(step.get("name") == "run_agent" for step in scenario.steps)


def build(max_turns: int, rng) -> dict:
    """name -> Scenario for one grading run; `rng` is the run's seeded random.Random."""
    draw = Draw(rng)
    scenarios = {}

    def add(scenario: Scenario):
        scenario.api_key = without_model(scenario)
        scenarios[scenario.name] = scenario

    meeting, resumed_meeting = draw.two_wordings(MEETING_TASKS)
    email, resumed_email = draw.two_wordings(EMAIL_TASKS)

    # -- save_checkpoint / load_checkpoint --
    # A save, loading it back, a missing file, then broken files, each a way a checkpoint goes bad (in
    # shuffled order, sharing one process: one point for all of them). Their JSON is ASCII (\u escapes), so
    # a Chinese error message cannot come from quoting the file; the GBK one is what an editor on Windows may save.
    state, previous = draw.sample("cpB", meeting), draw.sample("cpA", meeting)
    saved = draw.file(folder=draw.folder(least=2))  # a save judged by its power cuts two levels deep or more, always
    beside_saved = draw.bystanders(saved.rsplit("/", 1)[0] + "/")
    folder = draw.folder()
    damaged = dict(drawn(rng, st.tuples(*(generated.broken_files(kind) for kind in generated.BROKEN_KINDS))))
    damaged = {kind: damaged[kind] for kind in rng.sample(list(damaged), len(damaged))}
    files = {kind: draw.file(prefix=kind.replace("_", "-") + "-", folder=folder) for kind in damaged}
    on_disk = {f"{files[kind]}/{FOLDER_FILE}" if damaged[kind] == FOLDER else files[kind]:
               "" if damaged[kind] == FOLDER else damaged[kind] for kind in damaged}
    # States JSON cannot hold, each saved over a checkpoint of its own in a folder of their own (in the
    # process of the broken files: the one must stay as it was, and no temporary file be left).
    unjsonable = dict(drawn(rng, st.tuples(*(st.tuples(st.just(kind), generated.unjsonable_states(kind))
                                             for kind in generated.UNJSONABLE_KINDS))))
    kept = f"{draw.folder()}/{draw.letters(6)}"
    targets = {kind: draw.file(prefix=kind.replace("_", "-") + "-", folder=kept) for kind in unjsonable}
    # A long conversation's checkpoint, written by the grader, loaded whole (beside the broken files; drawing
    # nothing, so a seed draws what it drew before).
    long, long_file = lengthened(state), f"{folder}/long-conversation.json"
    # The save replaces an earlier checkpoint: a power cut at any moment must leave the one or the other.
    add(Scenario("save_roundtrip", independent_steps=True, watch=saved, read_left=True,
                 files={saved: json.dumps(previous, ensure_ascii=False), **on_disk, **dict(beside_saved.values()),
                        **{target: json.dumps(previous, ensure_ascii=False) for target in targets.values()},
                        long_file: json.dumps(long, ensure_ascii=False, indent=2)},
                 meta={"state": state, "previous": previous, "file": saved, "broken": files, "first_broken": 4,
                       "bystanders": {kind: name for kind, (name, _) in beside_saved.items()},
                       "after_kill": draw.sample("cpC", email), "long": long,
                       "damaged": damaged, "task": meeting, "unjsonable": unjsonable, "unsaved": targets,
                       "unsaved_folder": kept, "first_unsaved": 4 + len(damaged)},
                 steps=[call("save_checkpoint", state, path(saved)),
                        call("load_checkpoint", path(saved)),
                        call("load_checkpoint", path(draw.file(folder=saved.rsplit("/", 1)[0]))),
                        call("load_checkpoint", path(long_file)),
                        *({**call("load_checkpoint", path(files[kind])), "batch": "broken"} for kind in damaged),
                        *({**call("save_checkpoint", unjsonable[kind], path(targets[kind])), "batch": "broken"}
                          for kind in unjsonable)]))

    # Loads in one process between saves of new states, through one path relative to the current folder, with its
    # folders: each reads what is on disk at that moment, also after the caller changed what the one before returned
    # (a load that keeps its results, as functools.lru_cache does, fails; so does a save that leaves the process in
    # another current folder). Then the same state saved twice to a path, its file damaged in place or removed in
    # between by the grader (as the notebook's demo damages one): the second save leaves the state on disk all the same.
    # Then, in a process of its own, each kind of broken file is put at a path the student's save_checkpoint saved to
    # twice (so whatever backup of the previous checkpoint it makes is there): load_checkpoint raises as on any broken
    # file, never returns an older state. A folder cannot take a saved file's place in one atomic write: left out.
    reloaded = draw.file()
    load = call("load_checkpoint", path(reloaded, "relative"))
    reloads = [load, call("save_checkpoint", draw.sample("cpA", meeting), path(reloaded, "relative")), load,
               {**load, "spoil_after": True}, load,
               call("save_checkpoint", draw.sample("cpC", email), path(reloaded, "relative")), load]
    text = json.dumps(state, ensure_ascii=False)
    changed = {"damaged": text[:rng.randint(1, len(text) - 1)], "removed": None}  # kind -> what the grader leaves
    resaved = {kind: draw.file() for kind in changed}
    resaves = [call("save_checkpoint", state, path(name)) for name in resaved.values() for _ in range(2)]
    backed = {kind: draw.file(prefix=kind.replace("_", "-") + "-") for kind in damaged if damaged[kind] != FOLDER}
    saves = [call("save_checkpoint", cp, path(name)) for name in backed.values() for cp in (previous, state)]
    first_backed = len(reloads) + len(resaves) + len(saves)
    changes = {len(reloads) + 2 * number + 1: {resaved[kind]: changed[kind]} for number, kind in enumerate(resaved)}
    add(Scenario("save_reload", independent_steps=True, read_after=tuple(resaved.values()),
                 files_before={**changes, first_backed: {backed[kind]: damaged[kind] for kind in backed}},
                 meta={"reloads": len(reloads), "backed": backed, "first_backed": first_backed, "damaged": damaged,
                       "previous": previous, "state": state, "resaved": resaved},
                 steps=[*({**step, "batch": "saves"} for step in reloads + resaves + saves),
                        *({**call("load_checkpoint", path(name)), "batch": "broken"} for name in backed.values())]))

    # The default path, CHECKPOINT_PATH: a bare file name, in the folder the notebook runs in, over an earlier
    # checkpoint there (a power cut is judged as on any path), beside other files of that folder.
    beside_default = draw.bystanders("")
    add(Scenario("save_default_path", independent_steps=True,
                 files={DEFAULT_FILE: json.dumps(previous, ensure_ascii=False), **dict(beside_default.values())},
                 meta={"state": state, "previous": previous, "file": DEFAULT_FILE,
                       "bystanders": {kind: name for kind, (name, _) in beside_default.items()}},
                 steps=[call("save_checkpoint", state), call("load_checkpoint")]))

    small, big = draw.sample("cpB", meeting), draw.sample("cpC", email)
    big["messages"][-2]["content"][0]["content"] += "\n" + "会议纪要的附录，很长很长。" * 12_000
    target = draw.file()
    # then two tasks' checkpoints in one folder, each saved by a process of its own (as two agents would)
    pair = draw.folder()
    siblings = [draw.file(prefix=prefix, folder=pair) for prefix in ("a-", "b-")]
    add(Scenario("save_atomic", watch=target, read_left=True,
                 meta={"state": small, "big": big, "file": target, "siblings": siblings}, steps=[
        call("save_checkpoint", small, path(target)),
        {**call("save_checkpoint", big, path(target)), "file_size_limit": FILE_SIZE_LIMIT},
        *(call("save_checkpoint", cp, path(name)) for cp, name in zip((small, state), siblings)),
    ]))

    # Two saves in one process, into two folders: the second is judged at every power cut as a first one is (a save
    # that keeps the first folder's descriptor for the later ones makes the wrong folder durable)
    first_elsewhere, second = draw.file(), draw.file()
    add(Scenario("save_two_folders", watch=second, files={second: json.dumps(previous, ensure_ascii=False)},
                 meta={"file": second, "previous": previous, "state": state},
                 steps=[{**call("save_checkpoint", small, path(first_elsewhere)), "batch": "two"},
                        {**call("save_checkpoint", state, path(second)), "batch": "two"}]))

    # -- reconcile -- (read_file earns its own point; the other read-only tools one together, in one process,
    # and so do the unheard-of tools)
    # A read-only call whose rerun fails (a path the workspace does not have) is among the others.
    # Drawn in this order so that, of the cases with a history (alternating), a read_file and a grep have their
    # tool's call with another input first in it and another read_file and another case last; read_file first in
    # the steps, for its own process.
    kinds = ["read_file", "read_file", "grep", "read_file", "list_dir", "web_search", "failing_rerun", "grep"]
    # In each process one case (drawn) is of a run that used MAX_TURNS up: it is reconciled all the same (run_agent
    # reconciles and saves before it stops), a read-only call run again, an email never sent again
    spent = {rng.choice([number for number, kind in enumerate(kinds) if (kind == "read_file") == own])
             for own in (True, False)}
    read_only = drawn(rng, alternating(*({"pending": DANGLING[kind], "spent": max_turns if number in spent else None}
                                         for number, kind in enumerate(kinds))))
    read_only, kinds = map(list, zip(*sorted(zip(read_only, kinds), key=lambda case: case[1] != "read_file")))
    outputs = output_shapes(rng, kinds)
    add(Scenario("reconcile_read_only", independent_steps=True, meta={"checkpoints": read_only, "kinds": kinds},
                 steps=[{**call("reconcile", cp), "report_args": True, "outputs": outputs[number],
                         "batch": "read_file" if kind == "read_file" else "others"}
                        for number, (cp, kind) in enumerate(zip(read_only, kinds))]))

    # the same email sent before, answered without is_error: that one went out, whether this one did is unknown.
    # Three in one process, in any order: one to the team's list and one to one person, one of the two drawn freely
    # and the other with a subject the sent list shows as written (the mail's header trims spaces at the ends), so a
    # reconcile that finds "its" email there always can; and one of
    # the two after it was reconciled, the model asking to send it again (a new id, the same input) and a crash
    # leaving that one dangling too, so a reconcile that answers a name and input only once leaves it unanswered
    recipients = [DANGLING["send_email"], DANGLING["send_email_to_one"]]
    rng.shuffle(recipients)
    as_listed = recipients[1].filter(lambda call: call[1]["subject"] == call[1]["subject"].strip())
    as_run = rng.randrange(2)  # which one has the counters a run saves (counted_as_run), the other MAX_TURNS or more
    sends = [drawn(rng, checkpoints(pending, exchanges=(1, 5), same_call_before=True, as_run=number == as_run,
                                    spent=None if number == as_run else max_turns))
             for number, pending in enumerate((recipients[0], as_listed))]
    sends.append(drawn(rng, asked_again(rng.choice(sends))))
    rng.shuffle(sends)
    emails_before = tuple(send["pendingToolUse"]["input"] for send in sends)  # out just before the crash
    # and one of them reconciled again later in the process, the same checkpoint loaded again: a crash after
    # reconciling, before the save after it, leaves save point A on disk (the lesson's table), and a kernel that
    # resumes again reconciles the same call a second time
    first = rng.randrange(len(sends))
    sends.insert(rng.randint(first + 1, len(sends)), copy.deepcopy(sends[first]))
    add(Scenario("reconcile_send_email", independent_steps=True, meta={"checkpoints": sends},
                 emails_before=emails_before,
                 steps=[{**call("reconcile", send), "report_args": True, "batch": "send_email"} for send in sends]))

    spent = rng.randrange(len(UNHEARD_OF))
    unheard_of = list(drawn(rng, alternating(*({"pending": DANGLING[kind], "spent": max_turns if number == spent else None}
                                               for number, kind in enumerate(UNHEARD_OF)))))
    rng.shuffle(unheard_of)
    add(Scenario("reconcile_unheard_of", independent_steps=True, meta={"checkpoints": unheard_of},
                 steps=[{**call("reconcile", cp), "report_args": True, "batch": "unheard_of"} for cp in unheard_of]))

    # -- recovery_action -- over drawn checkpoints; the expected answer is the reference's, at judging time.
    # Every kind of dangling call, and the three ways of having none; all the cases share one process in
    # shuffled order, so neither the wording, the shape, the position nor an earlier call says what to answer.
    # A failed last result (is_error) is a known outcome, not a dangling call: one of each, every time; and a dangling
    # call of a run that used MAX_TURNS up (the answer does not depend on the turns).
    cases = list(drawn(rng, alternating({"ending": "result", "result_flags": (True,)},
                                        {"ending": "result", "result_flags": (None, False)}, {"ending": "answer"},
                                        *({"pending": DANGLING[kind]} for kind in DANGLING),
                                        {"pending": st.one_of(*DANGLING.values())},
                                        {"pending": st.one_of(*DANGLING.values()), "spent": max_turns})))
    rng.shuffle(cases)
    add(Scenario("recovery_action", independent_steps=True, meta={"cases": cases},
                 steps=[{**call("recovery_action", cp), "report_args": True, "batch": "recovery"} for cp in cases]))

    # -- the multiple-choice answers (values only: one process reads them all) --
    add(Scenario("answers", independent_steps=True, steps=[
        {"kind": "value", "name": name, "batch": "answers"}
        for name in ("QUIZ_DELETE_ANSWER", "ROOT_CAUSE_ANSWER", "QUIZ_FAILURE_ANSWER")]))
    # -- run_agent: with the grader's own save / load / reconcile (STANDINS), or in Level 2 with the
    # student's own, the way the notebook's replay runs the incident --
    def agent(name, task, checkpoint=None, runs=1, standins=STANDINS, client=CLIENT, step_options=None, **options):
        where = draw.file()
        files = {where: json.dumps(checkpoint, ensure_ascii=False)} if checkpoint else {}
        # WITHOUT_CLIENT: the documented run_agent(task, path=...); None: client=None, as the signature allows
        given = {} if client is WITHOUT_CLIENT else {"client": client}
        step = {**call("run_agent", task, **given, path=path(where)), "timeout": AGENT_TIMEOUT,
                "quick_timeout": AGENT_QUICK_TIMEOUT, **(step_options or {})}
        add(Scenario(name, steps=[step] * runs, files=files, watch=where, standins=standins,
                     meta={"task": task, "checkpoint": checkpoint, "file": where}, **options))

    # Level 2. SIGKILL right after send_email delivered, before save point B: the incident itself; then
    # SIGKILL just before the second tool call (grep) runs: a read-only call left dangling.
    agent("incident_replay", email, counted_as_run(before_sending(draw.sample("cpC", email))), runs=2, standins=(),
          crash={"after_tool": "send_email"})
    agent("incident_read_only_crash", meeting, runs=2, standins=(), crash={"before_tool_call": 2})

    # When it resumes, run_agent is given the task in other words: the checkpoint's own task wins. One resume
    # is called as the docstring allows, without a client, and one with client=None: run_agent must make_client().
    agent("agent_fresh", meeting)
    agent("agent_resume", resumed_meeting, with_missing_note(draw.sample("cpA", meeting)), client=WITHOUT_CLIENT)
    # The grader's reconcile edits the checkpoint it is given here, as the reference's does (elsewhere it returns a new
    # one): a run_agent that saves the reconciled state only if it differs from a shallow copy of the loaded one, or
    # that keeps an alias, is judged with the reconcile a student's own notebook has.
    agent("agent_pending", resumed_meeting, draw.sample("cpB", meeting), client=None,
          step_options={"reconcile_in_place": True})
    agent("agent_crash_send", resumed_email, counted_as_run(before_sending(draw.sample("cpC", email))), runs=2,
          crash={"after_tool": "send_email"})
    # Interrupted (Jupyter's stop button: SIGINT, a KeyboardInterrupt) as the send is delivered, then resumed: its
    # outcome is as unknown as after a kill. An except or finally that saves "failed, interrupted" as its result turns
    # unknown into a wrong answer (the model is told the email did not go out; it did).
    agent("agent_interrupt_send", resumed_email, counted_as_run(before_sending(draw.sample("cpC", email))), runs=2,
          crash={"interrupt_after_tool": "send_email"})
    # Interrupted while the model is thinking (its n-th call of a fresh run): the checkpoint stays as the last save
    # point left it. A save made on the way out (except KeyboardInterrupt, finally) stores a turn counted before its
    # call and never answered: resumed, that turn is counted twice.
    agent("agent_interrupt_model", meeting, crash={"interrupt_at_model_call": rng.choice((1, 2, 3))})
    # Resumed with a call of a tool no list names left dangling (it may have had an effect: reconcile runs nothing,
    # answers is_error), on each task, and with send_email left dangling, in shuffled order in one process: neither
    # the task, the sample nor the place says which is which. The reference's run_agent on the same checkpoint is
    # the oracle (none of these runs a tool in the grader's own reconcile, which the oracle would not see).
    unheard_of = [drawn(rng, DANGLING[kind]) for kind in rng.sample(UNHEARD_OF, 2)]
    resumes = [(draw.with_pending(draw.sample("cpB", meeting), *unheard_of[0]), resumed_meeting),
               (draw.with_pending(draw.sample("cpC", email), *unheard_of[1]), resumed_email),
               (draw.sample("cpC", email), resumed_email)]
    # Resumed from checkpoints that end in a user message of text, nothing pending, which run on into the loop: words
    # the user added after the tool results, and the bare task (saved before the first reply).
    remarked, bare = draw.sample("cpA", meeting), draw.sample("cpA", meeting)
    remarked["messages"][-1]["content"].append({"type": "text", "text": rng.choice(USER_REMARKS)})
    bare["messages"] = bare["messages"][:1]
    # and one whose last tool result is a failure: a known result the model reads, never a call to run again
    failed = with_failed_result(draw.sample("cpA", meeting), rng.choice(FAILED_OUTPUTS))
    resumes += [(remarked, resumed_meeting), (bare, resumed_meeting), (failed, resumed_meeting)]
    resumes = rng.sample(resumes, len(resumes))
    where = [draw.file() for _ in resumes]
    # The one with send_email dangling is given no path: CHECKPOINT_PATH, "checkpoint.json" in the working folder,
    # where the notebook's own runs and a supervisor keep it (a run_agent that reruns the dangling call there only,
    # the incident again, otherwise behaves).
    default_at = next(i for i, (cp, _) in enumerate(resumes) if (cp["pendingToolUse"] or {}).get("name") == "send_email")
    where[default_at] = DEFAULT_FILE
    # One of them (a drawn one) gets client=None, the others a client each: each run calls the model through the
    # client it is given (one kept from an earlier run in a global is not), making one only when it is None.
    clients = [CLIENT] * len(resumes)
    clients[rng.randrange(len(resumes))] = None
    runs = [{**call("run_agent", task, client=client, **({} if number == default_at else {"path": path(file, form)})),
             "timeout": AGENT_TIMEOUT, "quick_timeout": AGENT_QUICK_TIMEOUT, "batch": "dangling"}
            for number, (file, (_, task), client, form) in enumerate(zip(where, resumes, clients,
                                                                         draw.forms(len(resumes))))]
    # Then a checkpoint saved over one of their paths (as a cell of the notebook does), and a run there again:
    # run_agent follows the disk, not what an earlier run in the kernel left in memory.
    again = rng.randrange(len(resumes))
    saved_over = draw.with_pending(draw.sample("cpB", meeting), *rng.choice(unheard_of))
    runs += [{**call("save_checkpoint", saved_over, *([] if again == default_at else [runs[again]["kwargs"]["path"]])),
              "batch": "dangling"},
             {**runs[again], "kwargs": {**runs[again]["kwargs"], "client": CLIENT}}]
    add(Scenario("agent_dangling", standins=STANDINS, independent_steps=True, read_after=tuple(where),
                 files={file: json.dumps(cp, ensure_ascii=False) for file, (cp, _) in zip(where, resumes)},
                 meta={"checkpoints": [cp for cp, _ in resumes] + [None, saved_over],
                       "files": where + [where[again]] * 2},
                 steps=runs))
    # A model call that raises (the API overloaded, its retries out; the notebook's crashing_client raises so): from
    # a drawn call on, every one, and run_agent's error goes to the caller. The checkpoint on disk is then the one on
    # disk when that call was made (the last save point B: the reference's run_agent saves nothing after it; judged
    # against the run's own, so that what the save points hold is judged once, elsewhere); then the same run again,
    # in the same process (as the notebook runs it again in its kernel), the model answering.
    where = draw.file()
    run = {**call("run_agent", meeting, client=CLIENT, path=path(where)), "timeout": AGENT_TIMEOUT,
           "quick_timeout": AGENT_QUICK_TIMEOUT, "batch": "model_error"}
    failing = {**run, "model_fails_from": rng.randint(2, 4)}
    add(Scenario("agent_model_error", standins=STANDINS, independent_steps=True, watch=where,
                 meta={"task": meeting, "file": where, "checkpoint": None},
                 steps=[failing, {**run, "read_before": [where]}]))
    # The same failing run alone in its process, whose end (a script's exit, the kernel shut down) runs what the
    # student's code left for then: what is on disk after it is still the last save point B (probe 15b: an atexit
    # function that saved each path's latest state again, turns counted for the failed call, had 5/5)
    add(Scenario("agent_model_error_ended", standins=STANDINS, watch=where,
                 meta={"task": meeting, "file": where, "checkpoint": None}, steps=[failing]))
    # A few turns left; the process dies before one of the tool calls and is started again.
    ending = draw.sample("cpA", meeting)
    ending["turns"] = max_turns - rng.randint(8, 12)
    agent("agent_max_turns_crash", resumed_meeting, ending, runs=2, model="endless",
          crash={"before_tool_call": rng.randint(3, 5)})
    # Checkpoints that cannot be read: load_checkpoint's ValueError goes through run_agent, and the file stays for a
    # person to look at; starting over would redo the turns done and maybe send an email again. Half a file, one of
    # another version (a run_agent that reads the file itself, or starts over when the message names the version),
    # and one more kind of damage, in one process, in shuffled order.
    truncated = json.dumps(draw.sample("cpB", meeting), ensure_ascii=False)
    truncated = truncated[:rng.randint(1, len(truncated) - 1)]  # a prefix of a JSON object is never one
    kinds = [rng.choice(("higher", "lower")), rng.choice(AGENT_BROKEN_KINDS)]
    broken = [("truncated", truncated), *((kind, data.decode()) for kind, data in
                                          drawn(rng, st.tuples(*map(generated.broken_files, kinds))))]
    rng.shuffle(broken)
    broken = [{"kind": kind, "text": text, "file": draw.file()} for kind, text in broken]
    where = next(b["file"] for b in broken if b["kind"] == "truncated")
    # Then, in the same process, an email task whose first save (save point A, before any tool) finds the disk full,
    # and every save after it: the OSError goes through run_agent, before a tool runs (no email without its save A).
    unsaved = draw.file()
    add(Scenario("agent_broken", files={b["file"]: b["text"] for b in broken}, watch=where, standins=STANDINS,
                 independent_steps=True, meta={"broken": broken, "files": [b["file"] for b in broken] + [unsaved],
                                               "file": where, "task": resumed_meeting, "checkpoint": None},
                 steps=[*({**call("run_agent", resumed_meeting, client=CLIENT, path=path(b["file"])), "batch": "broken",
                           "timeout": AGENT_TIMEOUT, "quick_timeout": AGENT_QUICK_TIMEOUT} for b in broken),
                        {**call("run_agent", email, client=CLIENT, path=path(unsaved)), "batch": "broken",
                         "saves_fail_from": 1, "timeout": AGENT_TIMEOUT, "quick_timeout": AGENT_QUICK_TIMEOUT}]))
    # Spent, with a call left dangling by the crash: reconciled and saved all the same, without calling the model.
    # Beyond MAX_TURNS (a limit lowered since the save): "while turns != MAX_TURNS" would never stop (counting up
    # from below, agent_max_turns_crash reaches it exactly).
    agent("agent_max_turns_spent", resumed_meeting, {**draw.sample("cpB", meeting), "turns": max_turns + rng.randint(1, 3)},
          model="endless", step_options={"reconcile_in_place": True})
    # Done, the closing reply in each shape it may have: returned as it is, the checkpoint left where it is.
    closings = closing_replies(rng)
    done = [finished(draw.sample("cpA", meeting), closing) for closing in closings]
    where = [draw.file() for _ in done]
    add(Scenario("agent_finished", standins=STANDINS, independent_steps=True, read_after=tuple(where),
                 files={file: json.dumps(cp, ensure_ascii=False) for file, cp in zip(where, done)},
                 meta={"task": resumed_meeting, "checkpoints": done, "closings": closings, "files": where},
                 steps=[{**call("run_agent", resumed_meeting, client=CLIENT, path=path(file)), "timeout": AGENT_TIMEOUT,
                         "quick_timeout": AGENT_QUICK_TIMEOUT, "batch": "finished"} for file in where]))

    # Fresh runs, one process for all: the model's replies in every shape (course.model.shaped), each run
    # ending on one that asks for no tool. The reference's run_agent on the same replies is the oracle.
    plans = drawn(rng, generated.reply_plans())
    tasks = [rng.choice((EMAIL_TASKS, MEETING_TASKS)[number % 2]) for number in range(len(plans))]
    # The first read-only output (list_dir's: every run calls a tool first) of each run in a shape a student may
    # misjudge (TOOL_OUTPUT_SHAPES), one shape a run. A listing with no notes in it ends a meeting run after two tool
    # calls, before its plan's ending: those shapes go to email runs, which go on to team.md and send_email.
    unlisting = ("empty", "nothing_found")
    first = rng.sample([number for number, task in enumerate(tasks) if task in EMAIL_TASKS], len(unlisting))
    others = [shape for shape in TOOL_OUTPUT_SHAPES if shape not in unlisting]
    shaped = {**dict(zip(first, unlisting)),
              **dict(zip(rng.sample([n for n in range(len(plans)) if n not in first], len(others)), others))}
    where = [draw.file() for _ in plans]
    add(Scenario("agent_replies", standins=STANDINS, independent_steps=True, read_after=tuple(where),
                 meta={"tasks": tasks, "files": where},
                 steps=[{**call("run_agent", task, client=CLIENT, path=path(file, form)), "timeout": AGENT_TIMEOUT,
                         "quick_timeout": AGENT_QUICK_TIMEOUT, "replies": plan, "batch": "replies",
                         "outputs": [shaped[number]] if number in shaped else []}
                        for number, (task, file, plan, form) in enumerate(zip(tasks, where, plans,
                                                                               draw.forms(len(plans))))]))
    return scenarios
