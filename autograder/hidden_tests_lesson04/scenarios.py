"""Lesson 4's grading scenarios, drawn afresh for every submission from the judge's seed.

`build(max_turns, rng)` as in lesson 3: its `Draw` (autograder/hidden_tests/scenarios.py) draws the
ids, folders and wordings, and its Hypothesis strategies (autograder/hidden_tests/generated.py) the
checkpoints and the tools, each from a seed the run's `random.Random(seed)` gives, so `--seed N`
draws the same run. The ledgers and server states are drawn here, on the same random.Random.
What is new is the ledger and the server:

- ledgers of any length holding other calls' records, some with the same name and input as the
  call at hand (a key or a lookup by name + input confuses them), text with quotes, line breaks
  and Chinese in it, and sometimes half a record at the end (an append a crash cut short);
- the mail server in one of three states for each dangling call: it has the email sent with the
  call's key, it has none, or it cannot be reached;
- the tool of each call: read-only, send_email, the lesson's other tools with effects, and tools
  no list names;
- the same call met again later in the same process, its ledger grown in between, as in a kernel
  where run_agent is run again after an interrupt (recovery_action's batch, and reconcile_up's).

Which answer a case expects is the reference's, at judging time (its recovery_action on the same
input); the cases of a scenario are shuffled together, so neither position nor wording tells.
"""
import copy
import json
import os
from collections import Counter

from hypothesis import strategies as st

from autograder.hidden_tests.generated import DANGLING, EMAIL_TASKS, MEETING_TASKS, READ_ONLY, UNHEARD_OF, checkpoints
from autograder.hidden_tests.scenarios import (DEFAULT_FILE, FOLDER_FILE, Draw, before_sending, counted_as_run, drawn,
                                              without_model)
from autograder.sandbox import Scenario
from autograder.scenario import Appended
from course.checks import TOOL_OUTPUT_SHAPES, _answered_before, _words_after_call
from course.ledger import LEDGER_NAME, delivered_text, ledger_text

AGENT_TIMEOUT = 20.0
AGENT_QUICK_TIMEOUT = 8.0
SAVE_STANDINS = ("save_checkpoint", "load_checkpoint")  # run_agent's points do not hang on lesson 3's code
CLIENT = {"$client": True}
BIG_LEDGER_CALLS = 3  # finished calls with a long output each (TOOL_OUTPUT_SHAPES): some 100 KiB of ledger
BLOCKED_TEXT = "台账的位置上是个文件夹"  # in the folder that stands where a ledger cannot be written
# What str.splitlines() breaks a line at and json.dumps(ensure_ascii=False) leaves as it is: the text of every call of
# the lesson's other tools with effects holds one, so its intent meets a ledger reader that splits lines at them
SEPARATORS = ("\u2028", "\u2029", "\u0085")
EFFECT_TOOLS = {  # the lesson's tools with effects (its effects table), which no server here knows
    "charge_card": lambda d: {"customer": f"cus_{d.letters(6)}", "amount": d.rng.randint(1, 900) * 100,
                              "description": f"会员续费{d.rng.choice(SEPARATORS)}第 {d.rng.randint(1, 12)} 期"},
    "append_line": lambda d: {"path": f"./logs/{d.letters(5)}.log", "line": f"本周结论{d.rng.choice(SEPARATORS)}已同步"},
    "add_label": lambda d: {"issue": d.rng.randint(100, 9999), "label": d.rng.choice(["urgent", "已复核"]),
                            "comment": f"复核意见{d.rng.choice(SEPARATORS)}无"},
    "set_ticket_status": lambda d: {"ticket": f"T-{d.rng.randint(100, 9999)}", "status": "closed",
                                    "comment": f"已修复{d.rng.choice(SEPARATORS)}请复核"},
    "write_file": lambda d: {"path": f"./out/{d.letters(5)}.md",
                             "content": f"第一行\n第二行{d.rng.choice(SEPARATORS)}\"引号\""},
}
# EFFECT_TOOLS by the lesson's table. Every case that the table treats alike for both is drawn once of each kind:
# a mistake that confuses them (an idempotent write re-run, or left out of the ledger, as if read-only) meets every run
EFFECT_KINDS = {"idempotent": ("add_label", "set_ticket_status", "write_file"),
                "non_idempotent": ("append_line", "charge_card")}
RECIPIENTS = ("team@example.com", "leads@acme.cn", "ops@example.org", "all-hands@163.com", "lin.lan@gmail.com")  # anywhere
# what the model may write after asking for a tool (lesson 3's checkpoints have such text: the API allows it)
AFTER_CALL_WORDS = ("发出去之后我再确认一遍。", "稍等，结果出来我就汇报。", "I'll report back once it's done.")
SUBJECTS = ("本周结论", "周会纪要汇总", "下周计划", "预算 \"初稿\"", "结论（第二版）")  # a header holds no line break


def call(name: str, *args, **kwargs) -> dict:
    return {"kind": "call", "name": name, "args": list(args), "kwargs": kwargs}


def path(name: str, form: str = "absolute") -> dict:
    """`name` in the working folder, passed as a Path from the root ("absolute") or as the relative Path `name`
    ("relative"): a Path either way, as every path in the notebook is (CHECKPOINT_PATH, ledger_path)."""
    return {"$path": name, "relative": "Path"} if form == "relative" else {"$path": name}


class Ledgers:
    """Calls, their ledger records and the server's knowledge of them, drawn from one Draw."""

    def __init__(self, draw: Draw):
        self.draw, self.rng = draw, draw.rng
        self.turns = Counter()  # key -> cases drawn with it (mixed)

    def email(self) -> dict:
        return {"to": self.rng.choice(RECIPIENTS), "subject": self.rng.choice(SUBJECTS),
                **({"body": "各位：\n本周结论见下。"} if self.rng.random() < 0.5 else {})}

    def call_of(self, kind: str) -> dict:
        """A call {id, name, input} of one kind: read_only, send_email, idempotent or non_idempotent (the lesson's
        other tools with effects, by its table), unheard_of, or one kind of unheard-of name (generated.UNHEARD_OF)."""
        if kind == "read_only":
            name, tool_input = drawn(self.rng, DANGLING[self.rng.choice(READ_ONLY)])
        elif kind == "failing_rerun":  # read-only, and run again it fails (a path the workspace does not have)
            name, tool_input = drawn(self.rng, DANGLING[kind])
        elif kind == "send_email":
            name, tool_input = "send_email", self.email()
        elif kind in EFFECT_KINDS:
            name = self.rng.choice(EFFECT_KINDS[kind])
            tool_input = EFFECT_TOOLS[name](self.draw)
        else:  # unheard_of, or one kind of it by name (generated.UNHEARD_OF)
            name, tool_input = drawn(self.rng, DANGLING[kind if kind in UNHEARD_OF else self.rng.choice(UNHEARD_OF)])
        return {"id": self.draw.tool_id(), "name": name, "input": dict(tool_input)}

    @staticmethod
    def output_of(pending: dict, failed: bool = False) -> str:
        """What the tool answered: its result, or (`failed`) the error text execute_tool returns for a failure."""
        if failed:
            return ("错误：邮件没有发出去：[Errno 111] Connection refused" if pending["name"] == "send_email"
                    else f"错误：{pending['name']} 没有完成：服务暂时不可用（503）")
        if pending["name"] == "send_email":
            return delivered_text(pending)
        # no separator in an output: a reader that splits lines at them loses the intents alone, whatever is drawn
        said = json.dumps(pending["input"], ensure_ascii=False)[:40].translate(dict.fromkeys(map(ord, SEPARATORS), " "))
        return f"{pending['name']} 已完成（{said}）"

    def records(self, pending: dict, kinds, shape: str | None = None) -> list:
        """`pending`'s records, one per kind: "intent", "outcome", or "failed" (an outcome holding an error:
        a definite result all the same). An intent may come twice: execute_with_ledger run again on a call that
        had only its intent (the service said it never arrived) writes a second one. `shape`: the outcome's output
        in one of the shapes a tool's output may take (TOOL_OUTPUT_SHAPES: empty, nothing found, ...)."""
        found = []
        for kind in kinds:
            if kind == "intent":
                found.append({"type": "intent", "toolUseId": pending["id"], "name": pending["name"],
                              "input": copy.deepcopy(pending["input"])})
            else:
                output = self.output_of(pending, failed=kind == "failed")
                found.append({"type": "outcome", "toolUseId": pending["id"],
                              "output": TOOL_OUTPUT_SHAPES[shape](output) if shape and kind == "outcome" else output})
        return found

    def others(self) -> list:
        """Records of 0-2 other calls, finished or not."""
        records = []
        for _ in range(self.rng.randint(0, 2)):
            other = self.call_of(self.rng.choice(["send_email", *EFFECT_KINDS, "unheard_of"]))
            records += self.records(other, self.rng.choice([("intent", "outcome"), ("intent",)]))
        return records

    def mixed(self, pending: dict, kinds, shape: str | None = None, key=None, apart: bool = False) -> list:
        """`pending`'s records among the others', in an order a ledger could have (each call's own in order).

        Beside any call with an effect there is always a finished twin (`self.twin` after this): another call
        (another id) with the same name and input, as when the model asks for the same email twice. Code that finds a
        call's records by anything but its id answers for the twin, in every case, whatever the seed.

        The call's last record is the ledger's last, or another call's records follow it: a reader that looks at the
        ledger's last record only is wrong in the one, one that drops the last line in the other. Cases drawn with
        the same `key` (a kind of case, judged by one check) take the two in turn, in the order they are drawn, so
        that every kind with two cases or more has both whatever the seed; without a key, either is drawn.

        `apart`: another call's records, its outcome among them, always lie between the call's intent and its outcome
        (a reader that looks only at the record right after the intent, or takes the first outcome after it, misses
        the call's outcome); without it, they may lie together.

        When others' records follow the call's, an intent of another call is among them (the twin's, at least): a
        reader that takes the ledger's last intent for the pending call's is wrong there."""
        ours, theirs = self.records(pending, kinds, shape), self.others()
        self.twin = None
        if pending["name"] not in READ_ONLY:
            self.twin = {**copy.deepcopy(pending), "id": self.draw.tool_id()}
            twin = self.records(self.twin, ("intent", "outcome"))
            at = self.rng.randint(0, len(theirs))
            theirs[at:at] = twin
        if key is None:
            last = self.rng.random() < 0.5
        else:
            last, self.turns[key] = self.turns[key] % 2 == 1, self.turns[key] + 1
        if apart and len(ours) > 1:  # another call finished in between, and the twin's two records somewhere
            between = self.records(self.call_of(self.rng.choice(["send_email", *EFFECT_KINDS])), ("intent", "outcome"))
            cut = self.rng.randint(0, len(theirs) - (0 if last else 1))
            end = len(theirs) if last else self.rng.randint(cut, len(theirs) - 1)
            return theirs[:cut] + ours[:-1] + theirs[cut:end] + between + ours[-1:] + theirs[end:]
        if not last:
            intents = [n for n, record in enumerate(theirs) if record["type"] == "intent"]
            cut = self.rng.randint(0, intents[-1] if intents else max(0, len(theirs) - 1))
            return theirs[:cut] + ours + theirs[cut:]
        cut = self.rng.randint(0, len(theirs))
        if ours and ours[-1]["type"] == "outcome":  # its intent among the others', its outcome written last
            return theirs[:cut] + ours[:-1] + theirs[cut:] + ours[-1:]
        return theirs + ours


# Where a crash may cut the last append short (TORN_AT): at a character inside the record; after the whole record,
# before its line break (the JSON and the "\n" written apart, or the last of the write did not reach the disk); or
# inside a character of several bytes (a power cut keeps bytes, not characters)
TORN_AT = ("character", "line_break", "inside_character")


def torn(text: str, rng, at: str = "character") -> bytes:
    """The ledger with half a record after its last line: an append a crash cut short, where `at` says."""
    record = json.dumps({"type": "intent", "toolUseId": "toolu_01" + "x" * 22, "name": "send_email",
                         "input": {"to": "team@example.com", "subject": "本周结论"}}, ensure_ascii=False)
    data = record.encode("utf-8")
    if at == "line_break":
        cut = len(data)
    elif at == "inside_character":
        cut = rng.choice([n for n, byte in enumerate(data) if byte & 0xC0 == 0x80])
    else:
        cut = len(record[:rng.randint(5, len(record) - 5)].encode("utf-8"))
    return text.encode("utf-8") + data[:cut]


def broken_in_the_middle(records: list, ledgers: "Ledgers", rng) -> str:
    """The ledger of `records` with a line that is no record before one of them: the half of a record whose append a
    crash cut short, and the next append glued onto it (its torn tail never cut off the file)."""
    half = ledger_text(ledgers.records(ledgers.call_of("send_email"), ("intent",)))
    glued = ledger_text(ledgers.records(ledgers.call_of(rng.choice(list(EFFECT_KINDS))), ("intent",)))
    at = rng.randint(0, len(records) - 1)
    return ledger_text(records[:at]) + half[:rng.randint(5, len(half) - 5)] + glued + ledger_text(records[at:])


# A state of the service in which it knows the call -> the result it answers for it (None: the delivered email's text)
ANSWERED = {"sent": None, "answered_empty": "", "answered_error": "错误：收件服务器拒收：550 收件人邮箱已停用"}


def service_in(state: str, pending: dict | None) -> dict:
    """The service a recovery_action case's lookup answers as (scenario_run.answering_lookup), in one state: "sent"
    (it has the email sent with the call's key), "answered_empty" or "answered_error" (it knows the call, and its
    result was "" or an error), "empty" (it has none) or "down"; only the mail server can be asked by key."""
    known = pending is not None and state in ANSWERED and pending["name"] == "send_email"
    answers = {pending["id"]: ANSWERED[state] if ANSWERED[state] is not None else delivered_text(pending)} if known else {}
    return {"answers": answers, "down": state == "down"}


def build(max_turns: int, rng) -> dict:
    """name -> Scenario for one grading run of lesson 4; `rng` is the run's seeded random.Random."""
    draw = Draw(rng)
    ledgers = Ledgers(draw)
    scenarios = {}

    def add(scenario: Scenario):
        scenario.api_key = without_model(scenario)
        scenarios[scenario.name] = scenario

    # -- the effects table and the multiple-choice answers: values, read in one process --
    add(Scenario("answers", independent_steps=True, steps=[
        {"kind": "value", "name": name, "batch": "answers"}
        for name in ("EFFECTS", "QUIZ_EXACTLY_ONCE_ANSWER", "QUIZ_KEY_ANSWER", "ROOT_CAUSE_ANSWER")]))

    # -- append_ledger: two appends to a ledger that has records already, one that creates the ledger, one that
    # creates it under its bare name in the working folder (the default ledger_path(CHECKPOINT_PATH): its
    # os.path.dirname is ""); the others' paths absolute or relative, drawn; then two ledgers in one process --
    old = [r for _ in range(rng.randint(1, 3))
           for r in ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS, "unheard_of"])),
                                    ("intent", "outcome"))]
    existing, created = f"{draw.folder()}/{LEDGER_NAME}", f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}"
    fresh = ledgers.call_of("send_email")
    new = ledgers.records(fresh, ("intent", "outcome"))
    first, bare = (ledgers.records(ledgers.call_of(rng.choice([*EFFECT_KINDS, "unheard_of"])), ("intent",))[0]
                   for _ in range(2))
    forms = rng.sample(["absolute", "relative", rng.choice(["absolute", "relative"])], 3)
    # and one append to each of two ledgers (two runs' folders) in one process: each record goes to its own path
    pair = [{"ledger": f"{draw.folder()}/{draw.letters(4)}{number}/{LEDGER_NAME}",
             "old": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent", "outcome")),
             "record": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent",))[0]}
            for number in range(2)]
    # and two appends to one ledger in one process, another process appending a record of its own in between (the
    # grader, through O_APPEND): each goes at the end the file has then, none written over
    shared = {"ledger": f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}",
              "old": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent", "outcome")),
              "records": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])),
                                         ("intent", "outcome")),
              "other": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent",))[0]}
    # and two appends to one new ledger in one process, the grader removing it in between (a notebook's cell that
    # empties a folder and runs again): the second append creates the ledger again, its name made durable again
    recreated = {"ledger": f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}",
                 "records": [ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent",))[0]
                             for _ in range(2)]}
    # and several appends to one ledger in one process, one after another (how many, drawn): each is durable before
    # it returns, not only the first of a process or of a while (a cached handle, fsyncs spaced out for speed)
    many = {"ledger": f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}",
            "old": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent", "outcome")),
            "records": [r for _ in range(rng.randint(2, 3))
                        for r in ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])),
                                                 ("intent", "outcome"))]}
    given = {existing: ledger_text(old), **{other["ledger"]: ledger_text(other["old"]) for other in pair},
             shared["ledger"]: ledger_text(shared["old"]), many["ledger"]: ledger_text(many["old"])}
    steps = [call("append_ledger", path(existing, forms[0]), new[0]),
             call("append_ledger", path(existing, forms[1]), new[1]),
             call("append_ledger", path(created, forms[2]), first),
             call("append_ledger", path(LEDGER_NAME, "relative"), bare),
             *({**call("append_ledger", path(other["ledger"]), other["record"]), "batch": "two_ledgers"}
               for other in pair),
             *({**call("append_ledger", path(shared["ledger"]), record), "batch": "shared"}
               for record in shared["records"]),
             *({**call("append_ledger", path(recreated["ledger"]), record), "batch": "recreated"}
               for record in recreated["records"])]
    shared_second, recreated_second, many["first_step"] = len(steps) - 3, len(steps) - 1, len(steps)
    steps += [{**call("append_ledger", path(many["ledger"]), record), "batch": "many"} for record in many["records"]]
    # and an append to a path where a folder stands (the ledger cannot be written): the error reaches the caller,
    # whose execute_with_ledger must not run the tool when the intent is not on disk
    blocked = {"ledger": f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}", "step": len(steps),
               "record": ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent",))[0]}
    given[f"{blocked['ledger']}/{FOLDER_FILE}"] = BLOCKED_TEXT
    steps.append(call("append_ledger", path(blocked["ledger"]), blocked["record"]))
    add(Scenario("append", independent_steps=True, files=given,
                 read_after=(created, LEDGER_NAME, recreated["ledger"]),
                 files_before={shared_second: {shared["ledger"]: Appended(ledger_text([shared["other"]]).encode("utf-8"))},
                               recreated_second: {recreated["ledger"]: None}},
                 meta={"existing": existing, "created": created, "old": old, "appended": new, "first": first,
                       "bare": bare, "pair": pair, "shared": shared, "recreated": recreated, "many": many,
                       "blocked": blocked},
                 steps=steps))

    # -- execute_with_ledger: one call of each kind, each in its own process, on one ledger (but the last) --
    ledger = f"{draw.folder()}/{LEDGER_NAME}"
    # the unheard-of tools whose names hold a read-only one, both every time: a guess by the name skips the ledger
    calls = [ledgers.call_of(kind) for kind in ("read_only", "send_email", "idempotent", "non_idempotent",
                                                 "begins_with_read_only", "has_read_only_inside")]
    twin = {**copy.deepcopy(calls[1]), "id": draw.tool_id()}  # the same email asked for again, by another call
    # and an email the server already holds under this call's key (an earlier run sent it, its ledger is gone): the
    # server answers "already delivered", a definite result, recorded as any other
    known = ledgers.call_of("send_email")
    calls += [twin, known]
    earlier = ledgers.records({**copy.deepcopy(calls[1]), "id": draw.tool_id()}, ("intent", "outcome"))
    rng.shuffle(calls)
    # one call with an effect answers a long text (a deployment's log, a report): its outcome records all of it
    long = rng.choice([n for n, c in enumerate(calls) if c["name"] not in READ_ONLY])
    # and another (no email: a real one always has a result text) answers "": a definite result, recorded as any other
    empty = rng.choice([n for n, c in enumerate(calls) if c["name"] not in (*READ_ONLY, "send_email") and n != long])
    shapes = {long: "long", empty: "empty"}
    # and one effect asked for twice in a row, by two calls (their ids differ), in one process: both run, each with
    # its own key (a memo of name and input kept in the process would answer the second with the first's result)
    again = ledgers.call_of(rng.choice(["send_email", "non_idempotent"]))
    repeated = range(len(calls), len(calls) + 2)
    calls += [again, {**copy.deepcopy(again), "id": draw.tool_id()}]
    # and a call with an effect whose ledger does not exist yet (a run's first effect): the append that creates it
    # makes its name durable too, or a power cut can take the intent with it
    calls.append(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])))
    ledger_of = [ledger] * (len(calls) - 1) + [f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}"]
    steps = [{**call("execute_with_ledger", c, path(ledger_of[n])),
              **({"effect_output": shapes[n]} if n in shapes else {}),
              **({"batch": "repeated"} if n in repeated else {})} for n, c in enumerate(calls)]
    # and a call with an effect whose intent cannot be appended (a folder stands at the ledger's path): the error
    # reaches the caller and the tool never runs, for the intent must be on disk before the effect
    blocked = {"call": ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])),
               "ledger": f"{draw.folder()}/{draw.letters(4)}/{LEDGER_NAME}"}
    add(Scenario("execute", independent_steps=True, ledgers=tuple(dict.fromkeys(ledger_of)),
                 read_after=ledger_of[-1:],
                 files={ledger: ledger_text(earlier + ledgers.others()), f"{blocked['ledger']}/{FOLDER_FILE}": BLOCKED_TEXT},
                 emails_before=((dict(known["input"]), known["id"]),),
                 meta={"ledgers": ledger_of, "calls": calls, "blocked": blocked, "known": known["id"]},
                 steps=[*steps, call("execute_with_ledger", blocked["call"], path(blocked["ledger"]))]))

    # -- recovery_action: generated checkpoints x ledger records x server states --
    wordings = [MEETING_TASKS, EMAIL_TASKS]
    rng.shuffle(wordings)
    kinds = [(None, (), "up")] * 2 + [("result", (), "up")]
    for tool in ("read_only",) * 2 + ("send_email",) * 5:
        kinds.append((tool, rng.choice([(), ("intent",), ("intent", "outcome")]), rng.choice(["sent", "empty", "down"])))
    # a tool no list names, in each state of the ledger: the ledger decides for it as for any tool with an effect
    for records in ((), ("intent",), ("intent", "outcome")):
        kinds.append(("unheard_of", records, rng.choice(["sent", "empty", "down"])))
    # states the lesson's own paths reach: an intent written twice (execute_with_ledger again after the service
    # said it never arrived), then its outcome too; and an outcome holding an error, which is an outcome all the same
    # (with the server down too: the second send may have arrived just before the crash, so it is unknown as ever)
    kinds.append(("send_email", ("intent", "intent"), rng.choice(["sent", "empty"])))
    kinds.append(("send_email", ("intent", "intent"), "down"))
    kinds.append((rng.choice(["send_email", *EFFECT_KINDS]), ("intent", "intent", "outcome"),
                  rng.choice(["sent", "empty", "down"])))
    kinds.append((rng.choice(["send_email", "non_idempotent"]), ("intent", "failed"), rng.choice(["sent", "empty", "down"])))
    # "answered_empty": the service knows the call, and its result was "" (lookup answers the text or None);
    # "answered_error": it knows the call, and its result was an error (a definite result too: record it)
    for records, server in ((("intent", "outcome"), "down"), (("intent",), "sent"), (("intent",), "empty"),
                            ((), "sent"), (("intent",), "down"), (("intent",), "answered_empty"),
                            (("intent",), "answered_error")):
        kinds.append(("send_email", records, server))
    # the other tools with effects in each state of the ledger, their service up (none here can be asked by key:
    # with only an intent, it answers no better than one that is down), and one of them with its service down
    for tool in EFFECT_KINDS:
        for records in ((), ("intent",), ("intent", "outcome")):
            kinds.append((tool, records, "empty"))
    kinds.append((rng.choice(list(EFFECT_KINDS)), ("intent",), "down"))
    rng.shuffle(kinds)
    # a recorded outcome in each shape a tool's output may take: "" or "（没有匹配的行）" is a definite result too
    shapes = dict(zip(rng.sample([n for n, (tool, records, _) in enumerate(kinds)
                                  if "outcome" in records and tool not in ("read_only", None, "result")],
                                 len(TOOL_OUTPUT_SHAPES)), TOOL_OUTPUT_SHAPES))
    cases = []
    for number, (tool, records, server) in enumerate(kinds):
        task = st.sampled_from(wordings[number % 2])
        if tool in (None, "result"):  # the model's last reply, or a tool's result: nothing pending
            cp = drawn(rng, checkpoints(ending="answer" if tool is None else "result", task=task))
            pending = None
        else:
            made = ledgers.call_of(tool)
            cp = drawn(rng, checkpoints(pending=st.just((made["name"], made["input"])), task=task))
            pending = cp["pendingToolUse"]
        found = ledgers.mixed(pending, records, shapes.get(number), key=(records, server)) if pending \
            else ledgers.others()
        cases.append({"checkpoint": cp, "records": found, "service": service_in(server, pending)})
    # and one call recovered again and again in the same process, as in a kernel where run_agent is run again after
    # each interrupt: its records only grow (none, then its intent, then its outcome) while the server comes and goes.
    # Each time the answer is the reference's on that time's records and server, whatever it was the time before.
    # It is one ledger growing: the other calls' records drawn once, the call's own appended to them, so the three
    # times with only its intent pass the same records and only the server's answer differs, as in a kernel. The
    # server says it has not got the email before it has it (the lesson: it may still be on its way, or the server
    # just restarted): a "not received" remembered is out of date the next time. The five go among the other cases,
    # in this order, at drawn places
    made = ledgers.call_of("send_email")
    recovered = drawn(rng, checkpoints(pending=st.just((made["name"], made["input"])),
                                       task=st.sampled_from(wordings[0])))
    pending = recovered["pendingToolUse"]
    theirs = ledgers.mixed(pending, ())
    times = [((), rng.choice(["sent", "empty", "down"])), (("intent",), "down"), (("intent",), "empty"),
             (("intent",), rng.choice(["sent", "answered_empty"])),
             (("intent", "outcome"), rng.choice(["sent", "down"]))]
    for at, (records, server) in zip(sorted(rng.sample(range(len(cases) + len(times)), len(times))), times):
        cases.insert(at, {"checkpoint": copy.deepcopy(recovered),
                          "records": copy.deepcopy(theirs) + ledgers.records(pending, records),
                          "service": service_in(server, pending)})
    # and a long ledger: the call's intent and outcome near its start, a dozen or more other calls' records after
    # them, its server down (a reader of the last few records finds nothing of it, and does the call again)
    made = ledgers.call_of(rng.choice(["send_email", "non_idempotent"]))
    early = drawn(rng, checkpoints(pending=st.just((made["name"], made["input"])), task=st.sampled_from(wordings[1])))
    later = [record for _ in range(rng.randint(6, 12))
             for record in ledgers.records(ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])),
                                           ("intent", "outcome"))]
    cases.insert(rng.randint(0, len(cases)), {
        "checkpoint": early, "records": ledgers.records(early["pendingToolUse"], ("intent", "outcome")) + later,
        "service": service_in("down", early["pendingToolUse"])})
    add(Scenario("recovery_action", independent_steps=True, meta={"cases": cases},
                 steps=[{**call("recovery_action", c["checkpoint"], c["records"], {"$lookup": c["service"]}),
                         "report_args": True, "batch": "recovery"} for c in cases]))

    # -- reconcile: each case its own checkpoint and ledger; the server up in one scenario, down in the other --
    def reconcile_cases(specs, down: bool, torn_ones: dict, shapes: dict, damaged: int | None = None,
                        empty: int | None = None, again: int | None = None, missing: int | None = None,
                        blank: int | None = None, big: int | None = None) -> tuple:
        """`torn_ones`: case -> where its ledger's last record is cut short (TORN_AT; the others' sometimes are, at a
        character); `shapes`: case -> the shape of its recorded outcome's output; `damaged`: the case whose ledger
        has a line in the middle that is no record (read_ledger raises ValueError); `empty`: the case whose email the
        server has, its result "" (what lookup_effect answers: "" is found too, None is not); `again`: the case
        reconciled a second time later in the same process, on the same checkpoint and ledger (a kernel where
        run_agent is run again after an interrupt), its ledger as the first time left it: {"again": True}, read as it
        began (its step's "read_before"); `missing`: the case with no ledger at all (a run's first crash came before
        its first append), `blank`: the case whose ledger is an empty file (nothing recorded yet, the file made);
        `big`: the case whose ledger holds well over 64 KiB of other calls' records before the call's own (a reader
        that reads the file with one os.read of a buffer's size sees a part of it, and cuts the rest off)."""
        cases, files, before = [], {}, []
        # every scenario has a call whose outcome lies apart from its intent, at a drawn case, the others drawn too
        answered = [number for number, (_, records, _) in enumerate(specs) if "outcome" in records]
        apart = {rng.choice(answered)} | {number for number in answered if rng.random() < 0.5}
        # each ledger given by an absolute or a relative path (both every time), a file of the project's beside it:
        # a reconcile that behaves only in a bare, absolute scratch folder shows it
        forms = draw.forms(len(specs))
        if missing is not None and forms[missing] != "relative":  # the ledger made by a relative path, every time (a
            # run_agent given a bare name hands reconcile one): the forms swapped, so that both are still there
            other = forms.index("relative")
            forms[missing], forms[other] = forms[other], forms[missing]
        for number, (tool, records, sent) in enumerate(specs):
            made = ledgers.call_of(tool)
            cp = draw.with_pending(draw.sample("cpC", rng.choice(EMAIL_TASKS)), made["name"], made["input"])
            pending = cp["pendingToolUse"]
            where = f"{draw.folder()}/{draw.letters(5)}/{LEDGER_NAME}"
            files[f"{os.path.dirname(where)}/{rng.choice(['notes.md', 'agent.log', 'config.toml'])}"] = "项目自己的文件\n"
            if number in (missing, blank):  # no record of any call yet: no file, or an empty one
                found, ledgers.twin = [], None
            else:
                found = ledgers.mixed(pending, records, shapes.get(number), key=(records, sent, down),
                                      apart=number in apart)
            if number == big:
                found = [record for _ in range(BIG_LEDGER_CALLS) for record in ledgers.records(
                    ledgers.call_of(rng.choice(["send_email", *EFFECT_KINDS])), ("intent", "outcome"), "long")] + found
            # the call's twin asked for and answered in the history (every call with an effect; read-only ones in
            # turn), and text after the call in every other case: the history and the last block say nothing of it
            twin = ledgers.twin or {**copy.deepcopy(pending), "id": draw.tool_id()}
            if ledgers.twin or number % 4 < 2:
                _answered_before(cp, twin, ledgers.output_of(twin))
                cp["turns"] += 1
            if number % 2 == 1:
                _words_after_call(cp, rng.choice(AFTER_CALL_WORDS))
            if number in torn_ones and ledger_text(found).isascii():  # whole records before the half one, with Chinese
                # in them: a reader that counts characters for bytes cuts into them
                found += ledgers.records(ledgers.call_of("send_email"), ("intent", "outcome"))
            if number == damaged:
                files[where] = broken_in_the_middle(found, ledgers, rng)
            elif number == blank:
                files[where] = ""
            elif number != missing:
                text = ledger_text(found)
                files[where] = torn(text, rng, torn_ones[number]) if number in torn_ones else \
                    torn(text, rng) if rng.random() < 0.3 else text
            if twin["name"] == "send_email" and ledgers.twin:  # the twin went out with its own key
                before.append((dict(twin["input"]), twin["id"]))
            if sent:  # delivered with the call's key just before the crash
                before.append((dict(pending["input"]), pending["id"]))
            elif tool == "send_email":  # never arrived, but an earlier email (last week's, no key) has the same
                # recipient and subject: the sent list shows one like it whatever the draw, the server by key does not
                before.append(dict(pending["input"]))
            kept = {"lookup_answers": {pending["id"]: ""}} if number == empty else {}
            cases.append({"checkpoint": cp, "ledger": where, "form": forms[number], "records": found, "sent": sent,
                          "service": {"answers": {pending["id"]: "" if kept else delivered_text(pending)} if sent
                                      else {}, "down": down},
                          **kept, **({"damaged": True} if number == damaged else {}),
                          **({"missing": True} if number == missing else {})})
        order = list(range(len(cases)))
        rng.shuffle(order)
        cases = [cases[i] for i in order]
        if again is not None:
            first = order.index(again)
            repeated = {key: copy.deepcopy(cases[first][key]) for key in ("checkpoint", "ledger", "lookup_answers")
                        if key in cases[first]}
            cases.insert(rng.randint(first + 1, len(cases)), {**repeated, "again": True})
        if missing is not None:  # last in the process: its append makes the ledger, and a append_ledger that changes
            # the process's folder on the way (os.chdir) then misleads no later case, whatever the seed
            cases.append(cases.pop(next(n for n, case in enumerate(cases) if case.get("missing"))))
        return cases, files, tuple(before)

    up_specs = [("send_email", ("intent", "outcome"), True), ("send_email", ("intent",), True),
                ("send_email", ("intent",), True), ("send_email", ("intent",), False),
                ("send_email", (), False), ("idempotent", (), False), ("unheard_of", ("intent",), False),
                ("non_idempotent", ("intent", "outcome"), False), ("read_only", (), False),
                ("failing_rerun", (), False),
                # an intent written twice (sent again after the server said it never arrived): asked again, each way
                ("send_email", ("intent", "intent"), True), ("send_email", ("intent", "intent"), False)]
    # and calls no ledger has a record of, the ledger not there yet or an empty file: never started, so run once
    # through the ledger, whatever the tool (one no key protects, one no list names whose name begins with a read-only
    # tool's, every time), and with the server down too
    unrecorded = [("non_idempotent", (), False), ("begins_with_read_only", (), False)]
    down_specs = [("send_email", (), False),
                  ("send_email", ("intent",), False), ("send_email", ("intent", "intent"), False),
                  ("send_email", ("intent", "outcome"), True),
                  ("idempotent", ("intent", "outcome"), False), ("non_idempotent", ("intent", "outcome"), False),
                  *((kind, ("intent",), False) for kind in EFFECT_KINDS)]
    # reconcile appends to the ledger on two paths, record (an outcome) and execute (an intent, then an outcome):
    # one case of each has half a record at the end of its ledger, and the next record must start a line of its own;
    # so has one case of each other path (reuse, rerun, is_error): reading the ledger may cut that half line off, and
    # nothing else (a reader that cuts into whole records, or rewrites the ledger, meets it whatever the seed)
    def numbers(specs, path) -> list:
        return [number for number, spec in enumerate(specs) if path(*spec)]

    # Each path's torn ledger is cut where TORN_AT says for that path, every run: on both appending paths one ledger
    # ends in a whole record without its line break (a reader that keeps it, uncut, glues the next record onto it);
    # on the others and on the second of each appending path, in a character (a reader that decodes the whole file
    # before cutting fails) or at one
    recording = numbers(up_specs, lambda tool, records, sent: records == ("intent",) and sent)
    executing = numbers(up_specs, lambda tool, records, sent: tool in ("send_email", *EFFECT_KINDS)
                        and "outcome" not in records and not sent)
    reusing = numbers(up_specs, lambda tool, records, sent: "outcome" in records)
    rerunning = numbers(up_specs, lambda tool, records, sent: tool in ("read_only", "failing_rerun"))
    unanswerable = numbers(up_specs, lambda tool, records, sent: tool == "unheard_of")  # is_error: no lookup by key
    torn_up = {**dict(zip(rng.sample(recording, 2), ("line_break", "inside_character"))),
               **dict(zip(rng.sample(executing, 2), ("line_break", "character"))),
               rng.choice(reusing): "inside_character", rng.choice(rerunning): "inside_character",
               **dict.fromkeys(unanswerable, "inside_character")}
    # the recorded outcomes in each shape a tool's output may take, every time, at drawn cases: "" is a definite result,
    # reused as it is; a long one makes a line longer than a reader that reads only the ledger's last few KB sees
    reused = [("up", n) for n in reusing] + [("down", n) for n in numbers(down_specs, lambda t, r, s: "outcome" in r)]
    shaped = dict(zip(rng.sample(reused, len(TOOL_OUTPUT_SHAPES)), TOOL_OUTPUT_SHAPES))
    # and a ledger damaged in the middle, the dangling call's intent in it: read_ledger's ValueError must reach the
    # caller (read as "no record", the call would run again), as lesson 3's checkpoint that cannot be read
    damaged = (rng.choice(["send_email", *EFFECT_KINDS]), ("intent",), False)
    # one email the server has answers "" when asked by key; and one call that reconcile records (it appends the
    # server's answer as the outcome) is reconciled again later in the same process: its outcome is in the ledger now,
    # reused. A recorded call, not an executed one: an executed tool's output may be an error text, and whether the
    # repeat then also met "an outcome that is an error" would depend on the draw
    # and a ledger of well over 64 KiB, the call's finished records after it, every time: one that no key protects
    up_extras = {"damaged": len(up_specs) + len(unrecorded), "empty": rng.choice(recording),
                 "big": numbers(up_specs, lambda tool, records, sent: tool == "non_idempotent" and "outcome" in records)[0],
                 "again": rng.choice(recording), "missing": len(up_specs), "blank": len(up_specs) + 1}
    for name, specs, down, torn_ones, extras in (("reconcile_up", [*up_specs, *unrecorded, damaged], False, torn_up,
                                                  up_extras),
                                                 ("reconcile_down", down_specs, True, {}, {"missing": 0})):
        side = name.rsplit("_", 1)[1]
        cases, files, before = reconcile_cases(specs, down, torn_ones,
                                               {n: shape for (where, n), shape in shaped.items() if where == side},
                                               **extras)
        add(Scenario(name, independent_steps=True, files=files, emails_before=before, service_down=down,
                     ledgers=tuple(dict.fromkeys(c["ledger"] for c in cases)), meta={"cases": cases},
                     steps=[{**call("reconcile", c["checkpoint"], path(c["ledger"], c.get("form", "absolute"))), "report_args": True,
                             "batch": "reconcile", **({"read_before": [c["ledger"]]} if c.get("again") else {}),
                             **({"lookup_answers": c["lookup_answers"]} if "lookup_answers" in c else {})}
                            for c in cases]))

    # -- run_agent, end to end: the email task from scratch, and killed at each moment of its send --
    def agent(name, task, checkpoint=None, runs=1, standins=SAVE_STANDINS, ledger_text=None, form="absolute",
              **options):
        """`form`: how run_agent is given its checkpoint's path, "absolute" or "relative" (see `path`), or "default"
        (none: CHECKPOINT_PATH, a bare name in the working folder, its ledger too)."""
        where = DEFAULT_FILE if form == "default" else draw.file()
        beside = os.path.join(os.path.dirname(where), LEDGER_NAME)
        given = {where: json.dumps(checkpoint, ensure_ascii=False)} if checkpoint else {}
        if ledger_text is not None:
            given[beside] = ledger_text
        where_to = {} if form == "default" else {"path": path(where, form)}
        step = {**call("run_agent", task, client=CLIENT, **where_to), "timeout": AGENT_TIMEOUT,
                "quick_timeout": AGENT_QUICK_TIMEOUT}
        add(Scenario(name, steps=[step] * runs, files=given, watch=where, standins=standins, read_after=(beside,),
                     meta={"task": task, "checkpoint": checkpoint, "file": where, "ledger": beside}, **options))

    email, again = draw.two_wordings(EMAIL_TASKS)
    # the three runs from scratch (each makes the ledger) are given the path in each form, the default one included
    forms = rng.sample(["absolute", "relative", "default"], 3)
    # the run that goes on in one process after making its ledger is given a relative path each time: an append that
    # moved the process to another folder (os.chdir) sends its later records and saves elsewhere on every seed
    forms.insert(0, forms.pop(forms.index("relative")))
    agent("agent_email", email, form=forms[0])
    agent("agent_crash_before_send", email, runs=2, crash={"before_tool": "send_email"}, form=forms[1])
    agent("agent_crash_after_send", email, runs=2, crash={"after_tool": "send_email"}, form=forms[2])
    # interrupted (Jupyter's stop button: SIGINT, a KeyboardInterrupt) as the send is delivered, then resumed: the
    # send's result is as unknown as after a kill, not an error to record (a finally or an except BaseException
    # that writes one, or a run_agent that answers the call with "interrupted", turns unknown into a wrong answer)
    agent("agent_interrupt_after_send", email, runs=2, crash={"interrupt_after_tool": "send_email"})
    # interrupted while the model is thinking (lesson 3's agent_interrupt_model): the checkpoint stays as it was
    agent("agent_interrupt_model", email, crash={"interrupt_at_model_call": rng.choice((1, 2, 3))})
    # resuming from the other checkpoints a crash leaves: at save point B (nothing pending: no reconcile), and at
    # save point A with a tool no service can be asked about by key (append_line, charge_card) pending, its outcome
    # already in the ledger beside the checkpoint: running it again does it twice
    agent("agent_resume_nothing_pending", email, before_sending(draw.sample("cpC", email)))
    recorded = draw.sample("cpC", email)
    made = ledgers.call_of("non_idempotent")
    recorded = draw.with_pending(recorded, made["name"], made["input"])
    found = ledgers.mixed(recorded["pendingToolUse"], ("intent", "outcome"), key="resume_recorded")
    # the ledger ending in half a record (an append a crash cut short), cut inside a character, the same way every
    # time (a whole JSON before its line break reads line by line, and the cut decides which readers stop: a drawn
    # one would give a mistake its points on some seeds): the course's read_ledger cuts it off; a reader of
    # run_agent's own (progress, a summary) that parses every line stops every resume
    agent("agent_resume_recorded", email, recorded,
          ledger_text=torn(ledger_text(found), rng, "inside_character"))
    scenarios["agent_resume_recorded"].meta["records"] = found
    # a read-only call pending (reconcile runs it again: clearing pendingToolUse alone leaves its tool_use unpaired,
    # a 400 at the next model call), beside a ledger holding other calls' records or none at all
    reading = draw.sample("cpC", email)
    made = ledgers.call_of("read_only")
    reading = draw.with_pending(reading, made["name"], made["input"])
    others = ledgers.others()
    agent("agent_resume_read_only", email, reading, ledger_text=ledger_text(others) if others else None)
    # save point A written, then the crash before the first intent: no ledger file beside the checkpoint yet. No
    # record is "never started" (reconcile reads a missing ledger as empty): the email goes out once, through the ledger
    agent("agent_resume_no_ledger", email, draw.sample("cpC", email))

    # -- the incident: its state (checkpoint at save point A, intent only, the email delivered), and a real kill --
    incident = counted_as_run(draw.sample("cpC", again))
    pending = incident["pendingToolUse"]
    agent("incident_state", again, incident, standins=(), ledger_text=ledger_text(ledgers.records(pending, ("intent",))),
          emails_before=((dict(pending["input"]), pending["id"]),))
    agent("incident_replay", again, counted_as_run(before_sending(draw.sample("cpC", again))), runs=2, standins=(),
          crash={"after_tool": "send_email"})

    # -- run_agent with the lesson's other tools with effects, which the offline model's script never asks for (it
    # only sends email): a "planned" model asks for them. One run from scratch asks for a tool of each kind (one
    # not idempotent, an idempotent write, one no list names, a read-only one), in a drawn order, and the one not
    # idempotent again later (the same name and input, a new id: another reminder, another charge of the same amount,
    # two calls with two keys), its ledger holding another task's records already (a checkpoint beside it in the same
    # folder shares it; they stay, the ledger is only appended to); four runs resume,
    # three with an idempotent write pending (its ledger in each state: nothing, the intent, intent and outcome), one
    # with a tool no list names pending and only its intent recorded (no service can be asked about it: is_error, the
    # ledger untouched). Each state every time: a mistake on one path loses the same points whatever the seed.
    # The reference's run_agent on the same replies is the oracle. All in one process. The fresh run's read-only call
    # succeeds with an output that mentions an error: flagged is_error, its result sends the model another request
    # (a tool's failure may be flagged or not: autograder.contract.error_flag_right). --
    plan = [{"name": c["name"], "input": c["input"]} for c in map(ledgers.call_of, ("non_idempotent", "idempotent",
                                                                                      "unusual_verb", "read_only"))]
    rng.shuffle(plan)
    repeated = next(n for n, c in enumerate(plan) if c["name"] in EFFECT_KINDS["non_idempotent"])
    plan.insert(rng.randint(repeated + 1, len(plan)), copy.deepcopy(plan[repeated]))
    elsewhere = [r for kind, kept in (("send_email", ("intent", "outcome")), ("non_idempotent", ("intent",)))
                 for r in ledgers.records(ledgers.call_of(kind), kept)]
    runs = [{"what": "fresh", "checkpoint": None, "records": elsewhere, "calls": plan}]
    for kind, kept in (("idempotent", ()), ("idempotent", ("intent",)), ("idempotent", ("intent", "outcome")),
                       ("unheard_of", ("intent",))):
        made = ledgers.call_of(kind)
        checkpoint = draw.with_pending(draw.sample("cpC", email), made["name"], made["input"])
        records = ledgers.mixed(checkpoint["pendingToolUse"], kept, key="agent_effects")
        runs.append({"what": kind, "checkpoint": checkpoint, "records": records, "calls": []})
    # One run (a drawn one) is called as the signature allows, with client=None or with no client at all:
    # run_agent makes its own with make_client() then, and only then
    without = rng.randrange(len(runs))
    given, steps = {}, []
    for number, run in enumerate(runs):  # each run its own folder, so its own ledger
        run["file"] = draw.file(folder=f"{draw.folder()}/{draw.letters(4)}{number}")
        run["ledger"] = os.path.join(os.path.dirname(run["file"]), LEDGER_NAME)
        if run["checkpoint"]:
            given[run["file"]] = json.dumps(run["checkpoint"], ensure_ascii=False)
        if run["records"]:
            given[run["ledger"]] = ledger_text(run["records"])
        client = rng.choice([{"client": None}, {}]) if number == without else {"client": CLIENT}
        steps.append({**call("run_agent", email, **client, path=path(run["file"], rng.choice(["absolute",
                                                                                              "relative"]))),
                      "timeout": AGENT_TIMEOUT, "quick_timeout": AGENT_QUICK_TIMEOUT, "calls": run["calls"],
                      "batch": "effects", "outputs": ["mentions_error"] if run["what"] == "fresh" else []})
    add(Scenario("agent_effects", steps=steps, files=given, model="planned", standins=SAVE_STANDINS,
                 independent_steps=True, read_after=tuple(run["ledger"] for run in runs),
                 meta={"task": email, "runs": runs}))
    # last, so no earlier draw moves: the checkpoint at save point B of the resume above, its turns used up (a run
    # cut off at MAX_TURNS and started again): nothing to reconcile, no model call (a loop while turns <= MAX_TURNS
    # calls the model once more, probe 17b)
    used_up = copy.deepcopy(scenarios["agent_resume_nothing_pending"].meta["checkpoint"])
    used_up["turns"] = max_turns
    agent("agent_turns_used_up", email, used_up)
    # and save point A of the last turn (a read-only call pending, turns at MAX_TURNS): reconciled and saved all the
    # same, with no model call (a reconcile inside the loop never runs: the call stays without its tool_result)
    pending_used_up = copy.deepcopy(scenarios["agent_resume_read_only"].meta["checkpoint"])
    pending_used_up["turns"] = max_turns
    agent("agent_turns_used_up_pending", email, pending_used_up)
    # and, in one process, a checkpoint of another version (load_checkpoint raises ValueError: it goes through, no
    # model call, the file left as it was; lesson 3's rule, which the wiring keeps), then the email task on a full
    # disk (every save raises OSError from save point A on: it goes through before send_email runs)
    kind = rng.choice(("higher", "lower"))
    version = rng.randint(2, 9) if kind == "higher" else rng.choice((0, -1, None))
    other = json.dumps({**draw.sample("cpC", email), "version": version}, ensure_ascii=False)
    # and then a resume with send_email pending whose ledger is damaged in the middle (a line that is no record, the
    # call's intent among the records after it): read_ledger's ValueError goes through, nothing is sent, the ledger
    # stays as it was for someone to look at (a run_agent that moves it aside and starts a new one finds no intent
    # and does the call again)
    unreadable, unsaved, damaged_beside = draw.file(), draw.file(), draw.file()
    pending_send = draw.sample("cpC", email)
    intent = ledgers.records(pending_send["pendingToolUse"], ("intent",))
    damaged_ledger = os.path.join(os.path.dirname(damaged_beside), LEDGER_NAME)
    damaged_text = broken_in_the_middle(ledgers.others() + intent, ledgers, rng)
    step = {"timeout": AGENT_TIMEOUT, "quick_timeout": AGENT_QUICK_TIMEOUT, "batch": "cannot_go_on"}
    add(Scenario("agent_cannot_go_on", standins=SAVE_STANDINS, independent_steps=True,
                 files={unreadable: other, damaged_beside: json.dumps(pending_send, ensure_ascii=False),
                        damaged_ledger: damaged_text},
                 read_after=(damaged_ledger,),
                 meta={"task": email, "damaged": {"kind": kind, "file": unreadable, "text": other},
                       "damaged_ledger": {"file": damaged_ledger, "text": damaged_text, "checkpoint": pending_send}},
                 steps=[{**call("run_agent", email, client=CLIENT, path=path(unreadable)), **step},
                        {**call("run_agent", email, client=CLIENT, path=path(unsaved)), **step, "saves_fail_from": 1},
                        {**call("run_agent", email, client=CLIENT, path=path(damaged_beside)), **step}]))
    return scenarios
