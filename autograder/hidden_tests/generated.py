"""Inputs the grader draws afresh for every run, with Hypothesis strategies, from the run's seed.

`examples(strategy, count, seed)` draws `count` values of a strategy with Hypothesis's own
generator, seeded: the same seed (the one the verdict records; `--seed N`) draws the same
values again with the same code. Drawing never runs a test: the values become the steps of a
scenario, the sandbox runs them in batches, and the reference solution, run here on the same
values, gives the expected answers (autograder.contract compares them).

What is drawn (the lesson's contract, not its examples):
- checkpoints (`checkpoints`): any number of earlier turns; every layout of content blocks the
  Messages API allows (text before, after or without a tool_use, several text blocks, an assistant
  turn as a plain string, two calls in one turn answered in one message, a tool_result as a
  string, as text blocks or without content, an earlier is_error, a user's own words after a
  result or after the model's answer); the task as a string or a text block, in any wording;
  an earlier call with the dangling call's very name and input, answered then without is_error,
  and one of its tool with another input (in every case with a history, from `alternating`); the model
  asking again for a call reconciled as unknown (`asked_again`);
  counters that have nothing to do with the history's length;
- dangling calls of every kind (`DANGLING`): each read-only tool, send_email (to the team's list
  and to one person), names that begin with, contain or end with a read-only name
  (mcp__fs__read_file), high-impact verbs no deny-list names, names that sound like reading and
  are on no list (get_invoice or fetch_report every time; lookupPrice, search_orders), names
  made up from nothing, and parts of a read-only name (email, read, sent_email);
- broken checkpoint files (`broken_files`): truncated at any point, a whole checkpoint with more after
  it (an old file's tail, zeros), empty, blank, versions
  above and below 1, the version 1 written as text ("1", and other text int() or float() reads
  as 1), JSON that is no object, fields missing, text that is not UTF-8, a folder, a file no one
  may read;
- states JSON cannot hold (`unjsonable_states`): a set, bytes, a key that is a tuple, an SDK
  object, somewhere in a drawn checkpoint;
- the shapes of the model's replies a run_agent gets (`reply_plans`): every stop reason and
  block order of course.model.shaped, over a few short runs.
"""
import json
import re
import string
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from hypothesis import seed as with_seed
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.internal.conjecture import providers

from autograder.contract import CHECKPOINT_FIELDS
from course.checks_ledger import EFFECT_TOOLS
from course.model import ENDING_SHAPES, TOOL_CALL_SHAPES, request_params, usage
from autograder.scenario import FileData
from autograder.sandbox import scratch_folder
from autograder.scenario_run import READ_ONLY_TOOL_NAMES

# Hypothesis keeps caches in a folder of its own, never in the course folder the grader runs in.
_HOME = scratch_folder("hypothesis")
set_hypothesis_home_dir(_HOME.name)
# Hypothesis also draws constants it finds in the source of every local module loaded so far. Which modules a
# process has loaded varies (a judge pool's worker has the hidden tests loaded after its first submission, a
# lone judge has not), so a seed would not draw the same values again; and the hidden tests' own words could turn
# up in a drawn input. The grader's draws take Hypothesis's built-in constants only.
providers._get_local_constants = providers.Constants
providers.CONSTANTS_CACHE.cache.clear()

# Whether looking at the mail already sent is read-only the lesson leaves to the student (calling it high
# impact only gives up a harmless redo): it is never the dangling call.
READ_ONLY = tuple(sorted(READ_ONLY_TOOL_NAMES - {"list_sent_emails"}))
# Task wordings, kept as data: a counterexample in the feedback quotes one as JSON, and a line of the hidden
# tests' code in the feedback would be taken for a leak. The scripted model picks its plan from a task's
# words: "纪要" (meeting notes) or "邮件" (email).
_WORDINGS = json.loads((Path(__file__).with_name("wordings.json")).read_text(encoding="utf-8"))
MEETING_TASKS, EMAIL_TASKS = tuple(_WORDINGS["meeting"]), tuple(_WORDINGS["email"])
WORDS = ("会议", "纪要", "结论", "邮件", "团队", "本周", "整理", "发送", "确认", "notes", "meeting", "read",
         "send", "预算", "下周", "负责人", "归档", "检查点")
TEXT = st.lists(st.sampled_from(WORDS + ("，", "。", " ", "、", "08-25", "✓")), min_size=1, max_size=8).map("".join)
EMAIL_WORDING = st.one_of(st.sampled_from(EMAIL_TASKS), st.builds("{}邮件{}".format, TEXT, TEXT))
OTHER_WORDING = st.one_of(st.sampled_from(MEETING_TASKS), TEXT.filter(lambda text: "邮件" not in text))
SNAKE = st.lists(st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=7), min_size=1, max_size=3).map(
    "_".join)
INPUT_VALUE = st.one_of(TEXT, st.integers(-5, 500), st.booleans(), st.lists(TEXT, max_size=2))
INPUTS = st.dictionaries(st.sampled_from(("path", "pattern", "query", "to", "subject", "target", "note", "limit")),
                         INPUT_VALUE, max_size=3)
# Inputs a rerun succeeds on (FAILING_READ_ONLY: ones it fails on).
READ_ONLY_INPUTS = {
    "read_file": st.fixed_dictionaries({"path": st.sampled_from(
        [f"./notes/meeting-08-{day}.md" for day in (25, 26, 27, 28, 29)] + ["./team.md"])}),
    "grep": st.fixed_dictionaries({"pattern": st.sampled_from(("结论", "决定", "负责", "下周", "预算")),
                                   "path": st.sampled_from(("./notes", "."))}),
    "list_dir": st.fixed_dictionaries({"path": st.sampled_from(("./notes", "."))}),
    "web_search": st.fixed_dictionaries({"query": TEXT}),
}
# A path the course's workspace does not have: the tool's own answer is an error ("错误：找不到 …").
MISSING_PATH = st.one_of(st.builds("./notes/meeting-09-{:02d}.md".format, st.integers(1, 30)),
                         st.builds("./{}/{}".format, st.sampled_from(("archive", "drafts", "minutes", "old")), SNAKE))
FAILING_READ_ONLY = st.one_of(
    st.tuples(st.just("read_file"), st.fixed_dictionaries({"path": MISSING_PATH})),
    st.tuples(st.just("list_dir"), st.fixed_dictionaries({"path": MISSING_PATH})),
    st.tuples(st.just("grep"), st.fixed_dictionaries({"pattern": st.sampled_from(("结论", "决定", "负责")),
                                                      "path": MISSING_PATH})))
# to the team's list, or to one person (its lead in course/workspace/team.md, or anyone): an email to one person
# cannot be taken back either
# the lesson's samples (and the incident's checkpoints, made from them) write to example.com; a student's agent writes
# anywhere, and the drawn checkpoints' team lives elsewhere (probe 22: a reconcile that kept the rules only for
# example.com had full marks)
DOMAIN = st.sampled_from(("example.org", "acme.cn", "163.com", "gmail.com", "outlook.com"))
ONE_PERSON = st.one_of(st.just("lin.lan@example.com"),
                       st.builds(lambda name, domain: f"{name.replace('_', '.')}@{domain}", SNAKE, DOMAIN))
EMAIL_INPUT = st.fixed_dictionaries({"to": DOMAIN.map("team@".__add__), "subject": TEXT})
EMAIL_TO_ONE_INPUT = st.fixed_dictionaries({"to": ONE_PERSON, "subject": TEXT})
UNUSUAL_VERBS = ("notify_oncall", "archive_thread", "publish_report", "escalate_ticket", "merge_pull_request",
                 "provision_vm", "revoke_access", "approve_invoice", "refund_order", "enqueue_job", "restart_service",
                 "page_engineer", "sign_contract", "rollback_release", "purge_cache", "wipe_device", "grant_role",
                 "ship_order", "broadcast_alert", "terminate_instance", "void_invoice", "tweet_status", "open_door")


# Verbs that sound like reading, before a noun: tools no list names read-only, which a guess by the name would run again.
# get_ and fetch_, the likeliest guesses, every time; another such verb besides.
COMMON_READING_VERBS = ("get", "fetch")
READING_VERBS = ("lookup", "search", "check", "view", "show", "describe", "find", "query", "count", "list", "read",
                 "load", "peek", "inspect", "scan", "browse")
NOUNS = ("invoice", "order", "user", "balance", "status", "report", "ticket", "account", "quota", "price", "inventory",
         "profile", "weather", "logs", "calendar", "contacts", "metrics", "schedule")


def _sounding(verb: str, noun: str, camel: bool) -> str:
    return verb + noun.capitalize() if camel else f"{verb}_{noun}"


def _around(name, before, after):
    """A made-up tool whose name holds a read-only tool's name (at the start when `before` is empty)."""
    return f"{before}_{name}_{after}".strip("_")


# Every tool name a lesson's table names (lesson 4's EFFECTS has get_balance, which get_or_fetch could draw).
NAMED_TOOLS = READ_ONLY_TOOL_NAMES | set(EFFECT_TOOLS)


def _parts(name: str) -> set:
    """The names inside a read-only tool's name: runs of its words, and each run without a plural's s ("email",
    "sent_email" in list_sent_emails). A READ_ONLY_TOOLS written as one string makes `in` a substring test."""
    words = name.split("_")
    runs = {"_".join(words[start:end]) for start in range(len(words)) for end in range(start + 1, len(words) + 1)}
    return {part for run in runs for part in (run, run.removesuffix("s")) if len(part) > 2} - {name}


PARTS_OF_READ_ONLY = tuple(sorted(set().union(*map(_parts, READ_ONLY_TOOL_NAMES)) - NAMED_TOOLS))


def _unheard_of(call: tuple) -> bool:
    return call[0] not in NAMED_TOOLS


# Every kind of dangling call: a strategy of (name, input) for each.
DANGLING = {
    **{name: st.tuples(st.just(name), READ_ONLY_INPUTS[name]) for name in READ_ONLY},
    "failing_rerun": FAILING_READ_ONLY,  # read-only, and run again it fails
    "send_email": st.tuples(st.just("send_email"), EMAIL_INPUT),
    "send_email_to_one": st.tuples(st.just("send_email"), EMAIL_TO_ONE_INPUT),
    "begins_with_read_only": st.tuples(st.builds(_around, st.sampled_from(READ_ONLY), st.just(""), SNAKE), INPUTS),
    "has_read_only_inside": st.tuples(st.builds(_around, st.sampled_from(READ_ONLY), SNAKE, SNAKE), INPUTS),
    # a read-only tool's name at the end: after another word, or in an MCP server's namespace (mcp__fs__read_file)
    "ends_with_read_only": st.tuples(st.builds("{}{}{}".format, SNAKE, st.sampled_from(("_", "-")),
                                               st.sampled_from(READ_ONLY)), INPUTS),
    "namespaced_read_only": st.tuples(st.builds("mcp__{}__{}".format, SNAKE, st.sampled_from(READ_ONLY)), INPUTS),
    "unusual_verb": st.tuples(st.sampled_from(UNUSUAL_VERBS), INPUTS),
    "get_or_fetch": st.tuples(st.builds(_sounding, st.sampled_from(COMMON_READING_VERBS), st.sampled_from(NOUNS),
                                        st.just(False)), INPUTS),
    "sounds_read_only": st.tuples(st.builds(_sounding, st.sampled_from(READING_VERBS), st.sampled_from(NOUNS),
                                            st.booleans()), INPUTS),
    "made_up": st.tuples(SNAKE, INPUTS),
    "part_of_read_only": st.tuples(st.sampled_from(PARTS_OF_READ_ONLY), INPUTS),  # email, read, search, sent_email...
    # a read-only tool's name in other letters' case: names are compared as written, like the API's
    "other_case": st.tuples(st.builds(lambda name, spell: spell(name), st.sampled_from(READ_ONLY),
                                      st.sampled_from((str.upper, str.title, str.capitalize))), INPUTS),
    # a read-only tool's name as another convention spells it (read-file, readFile: the API allows "-" in a name, and
    # JavaScript servers name tools in camelCase): another tool, which no normalising makes read-only
    "kebab_case": st.tuples(st.sampled_from([name.replace("_", "-") for name in READ_ONLY if "_" in name]), INPUTS),
    "camel_case": st.tuples(st.sampled_from([re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
                                             for name in READ_ONLY if "_" in name]), INPUTS),
}
UNHEARD_OF = ("begins_with_read_only", "has_read_only_inside", "ends_with_read_only", "namespaced_read_only",
              "unusual_verb", "get_or_fetch", "sounds_read_only",
              "made_up", "part_of_read_only", "other_case", "kebab_case", "camel_case")
DANGLING.update({kind: DANGLING[kind].filter(_unheard_of) for kind in UNHEARD_OF})
ANY_CALL = st.one_of(*DANGLING.values())
TOOL_ID = st.text(alphabet=string.ascii_letters + string.digits, min_size=22, max_size=22).map("toolu_01".__add__)
RESULT_CONTENT = st.one_of(TEXT, st.lists(st.builds(lambda t: {"type": "text", "text": t}, TEXT), min_size=1,
                                          max_size=2), st.none())


def alternating(*cases: dict):
    """A tuple of checkpoints, one per `cases` item (the arguments of `checkpoints`): every other one with no
    earlier turn and the rest with at least two; the tasks about email or not in the order e, o, o, e, e, o, ...;
    text after the dangling call in the order n, y, y, n, n, y, ... So any two cases from an even position hold
    both lengths and both wordings, and any four each pairing of them, whatever the seed. Every one with earlier
    turns has an earlier call of the dangling call's tool with another input: the first of its calls in the
    order 1, 5, 9, ..., the last in the order 3, 7, ... (a lookup in the history finds it, either way); and the
    very dangling call (its name and input), made and answered without is_error, in another earlier turn. The
    counters are as a run saves them in the order y, y, n, n, y, y, ... (counted_as_run): both with either length."""
    return st.tuples(*(checkpoints(**case, exchanges=(0, 0) if number % 2 == 0 else (2, 5),
                                   task=(EMAIL_WORDING, OTHER_WORDING)[(number + number // 2) % 2],
                                   after_call=(number + 1) // 2 % 2 == 1,
                                   same_tool_before=(None, "first", None, "last")[number % 4],
                                   same_call_before=number % 2 == 1, as_run=number // 2 % 2 == 0)
                       for number, case in enumerate(cases)))


def examples(strategy, count: int, seed: int) -> list:
    """`count` values of `strategy`, drawn by Hypothesis from `seed` (the same seed draws the same values).

    Hypothesis begins with the simplest value, the same whatever the seed: it is left out, so that
    every value depends on the seed (the simplest inputs come back when a failure is shrunk). So that
    drawing it costs nothing, the simplest value is None; Hypothesis never draws that branch again."""
    drawn = []

    @with_seed(seed)
    @settings(max_examples=count + 1, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(st.none() | strategy.map(lambda value: [value]))
    def collect(boxed):
        if boxed is not None:
            drawn.append(boxed[0])

    collect()
    return drawn[:count]


@st.composite
def _assistant(draw, calls: list) -> dict:
    """The model's turn: some text (or none), then its tool calls; a turn without calls may be a plain string."""
    words = draw(st.lists(TEXT, max_size=2))
    if not calls and draw(st.booleans()):
        return {"role": "assistant", "content": draw(TEXT)}
    blocks = [{"type": "text", "text": w} for w in words] or ([] if calls else [{"type": "text", "text": draw(TEXT)}])
    return {"role": "assistant", "content": blocks + calls}


@st.composite
def _results(draw, calls: list, flags: tuple = (None, False, True)) -> dict:
    """One user message answering every call, the tool_result blocks first (as the API requires); each block's
    is_error one of `flags` (None: no is_error)."""
    blocks = []
    for call in calls:
        block = {"type": "tool_result", "tool_use_id": call["id"]}
        content = draw(RESULT_CONTENT)
        if content is not None:
            block["content"] = content
        flag = draw(st.sampled_from(flags))
        if flag is not None:
            block["is_error"] = flag
        blocks.append(block)
    if draw(st.integers(0, 4)) == 0:
        blocks.append({"type": "text", "text": draw(TEXT)})
    return {"role": "user", "content": blocks}


def _call(draw, name, tool_input) -> dict:
    return {"type": "tool_use", "id": draw(TOOL_ID), "name": name, "input": dict(tool_input)}


def _other_input(draw, name: str, tool_input: dict):
    """Another input for the tool `name` (one it accepts, for a read-only tool), or None if none was found."""
    for _ in range(5):
        other = draw(READ_ONLY_INPUTS.get(name, INPUTS))
        if other != tool_input:
            return other
    return None


@st.composite
def checkpoints(draw, pending=None, ending: str = "pending", exchanges: tuple = (0, 5), task=None,
                after_call: bool = False, same_tool_before: str | None = None, same_call_before: bool = False,
                as_run: bool = False, result_flags: tuple = (None, False, True), spent: int | None = None) -> dict:
    """A checkpoint of format version 1. ending: "pending" (saved at point A, `pending` a strategy of the
    dangling (name, input)), "result" (saved at point B) or "answer" (the model's last reply, nothing pending);
    `exchanges`: the bounds of the number of earlier turns; `task`: a strategy of the task's wording;
    `after_call`: the model wrote some text after the dangling call; `same_tool_before` ("first", "last"): the
    first or the last earlier turn called the dangling call's tool with another input; `same_call_before`: another
    earlier turn made the very dangling call, answered without is_error (which says nothing of the dangling one);
    `as_run`: the counters a run saves with this history (counted_as_run), else turns beyond the history's;
    `result_flags`: the is_error flags the last results may have when ending is "result" (None: no is_error);
    `spent`: the MAX_TURNS a run used up, the turns then that many or a few more (what reconcile and recovery_action
    do does not depend on it)."""
    task = draw(st.one_of(EMAIL_WORDING, OTHER_WORDING) if task is None else task)
    messages = [{"role": "user", "content": task if draw(st.booleans()) else [{"type": "text", "text": task}]}]
    dangling = draw(pending) if ending == "pending" else None
    count = draw(st.integers(*exchanges))
    other_at = {"first": 0, "last": count - 1}.get(same_tool_before) if dangling is not None and count else None
    free = [number for number in range(count) if number != other_at]
    same_at = draw(st.sampled_from(free)) if same_call_before and dangling is not None and free else None
    for number in range(count):
        if number == same_at:
            calls = [_call(draw, *dangling)]
            messages += [draw(_assistant(calls)), draw(_results(calls, flags=(None, False)))]
            continue
        other = _other_input(draw, *dangling) if number == other_at else None
        if other is not None:  # the same tool before, with another input: what is run again is the dangling call
            calls = [_call(draw, dangling[0], other)]
            messages += [draw(_assistant(calls)), draw(_results(calls))]
            continue
        if draw(st.integers(0, 5)) == 0:  # the model answered, and the user said something more
            messages.append(draw(_assistant([])))
            said = draw(TEXT)
            messages.append({"role": "user", "content": said if draw(st.booleans()) else [{"type": "text", "text": said}]})
            continue
        repeat = dangling is not None and draw(st.integers(0, 3)) == 0  # the very same call, made and answered before
        calls = [_call(draw, *(dangling if repeat else draw(ANY_CALL)))]
        if draw(st.integers(0, 5)) == 0:
            calls.append(_call(draw, *draw(ANY_CALL)))  # two calls in one turn, answered in one message
        messages += [draw(_assistant(calls)), draw(_results(calls))]
    if ending == "pending":
        call = _call(draw, *dangling)
        message = draw(_assistant([call]))
        if after_call:  # a word after the call: the dangling call need not be the last block
            message["content"].append({"type": "text", "text": draw(TEXT)})
        messages.append(message)
        dangling = {"id": call["id"], "name": call["name"], "input": dict(call["input"])}
    elif ending == "result":
        calls = [_call(draw, *draw(ANY_CALL))]
        messages += [draw(_assistant(calls)), draw(_results(calls, flags=result_flags))]
    else:
        messages.append(draw(_assistant([])))
    turns = sum(m["role"] == "assistant" for m in messages) + draw(st.integers(0, 30))
    checkpoint = {"version": 1, "task": task, "turns": turns, "tokensUsed": draw(st.integers(0, 200_000)),
                  "messages": messages, "pendingToolUse": dangling}
    if as_run:
        counted_as_run(checkpoint)
    if spent is not None:
        checkpoint["turns"] = spent + draw(st.integers(0, 3))
    return checkpoint


def counted_as_run(cp: dict) -> dict:
    """cp with the counters a run of the offline model saves with its history: one turn per assistant message, and
    tokensUsed its last reply's usage. The notebook's replays save such checkpoints; the incident's scenarios start
    from one, and so do some drawn ones in every batch, so that no counter tells the grader's checkpoints from the
    notebook's (probe 12c: a reconcile that behaved only when turns exceeded the assistant messages scored above its
    twin, tamper_detect_checkpoint_shape)."""
    replies = [i for i, message in enumerate(cp["messages"]) if message["role"] == "assistant"]
    cp["turns"] = len(replies)
    if replies:
        last = replies[-1]
        used = usage({**request_params(), "messages": cp["messages"][:last]}, cp["messages"][last]["content"])
        cp["tokensUsed"] = used["input_tokens"] + used["output_tokens"]
    return cp



@st.composite
def asked_again(draw, checkpoint: dict) -> dict:
    """`checkpoint` after its dangling call was reconciled (is_error: the outcome unknown) and the model asked for
    the very same call again, under a new id, left dangling in turn: after an unknown outcome the model may well
    send the same email again, and a crash may come between again."""
    pending = checkpoint["pendingToolUse"]
    unknown = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
               "content": f"不知道 {pending['name']} 这次有没有生效：请先确认，再决定要不要再来一次。"}
    call = _call(draw, pending["name"], pending["input"])
    messages = [*checkpoint["messages"], {"role": "user", "content": [unknown]}, draw(_assistant([call]))]
    return {**checkpoint, "turns": checkpoint["turns"] + 1, "messages": messages,
            "pendingToolUse": {"id": call["id"], "name": call["name"], "input": dict(call["input"])}}

# -- broken checkpoint files: (kind, content) with content bytes, or FOLDER for a folder at the path --
FOLDER = "（一个文件夹）"
JSON_NOT_OBJECT = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT),
                               lambda inner: st.lists(inner, max_size=3), max_leaves=6)


# Built from parts, not st.from_regex: a regex with a character beyond ASCII costs Hypothesis a second to set up
NUMBER_TEXT = st.builds("".join, st.tuples(st.sampled_from(("", " ", "\t", "\n")), st.sampled_from(("", "+")),
                                           st.sampled_from(("", "0", "00")), st.sampled_from(("1", "１")),
                                           st.sampled_from(("", ".0", ".00", "e0")), st.sampled_from(("", " ", "\n")))
                        ).filter(lambda text: text != "1")


def _encoded(value) -> bytes:
    return json.dumps(value).encode("utf-8")  # ASCII (\u escapes): a Chinese message cannot come from the file


@st.composite
def broken_files(draw, kind: str) -> tuple:
    """A file of this kind of damage, made from a drawn checkpoint."""
    # a short history: a longer one would make no other kind of damage, and drawing costs CPU per student
    cp = draw(checkpoints(ANY_CALL, draw(st.sampled_from(("pending", "result", "answer"))), exchanges=(0, 2)))
    text = _encoded(cp)
    if kind == "truncated":
        return kind, text[:draw(st.integers(1, len(text) - 1))]
    if kind == "empty":
        return kind, draw(st.sampled_from((b"", b" ", b"\n", b"\0" * 8, b"\xef\xbb\xbf")))
    if kind == "higher":
        return kind, _encoded({**cp, "version": draw(st.integers(2, 10 ** 6))})
    if kind == "lower":
        return kind, _encoded({**cp, "version": draw(st.one_of(st.integers(-10 ** 6, 0), st.none()))})
    if kind == "text_version":  # the right number as its own text: whatever lets text through lets this through
        return kind, _encoded({**cp, "version": "1"})
    if kind == "number_text":  # other text that int() or float() reads as 1: " 1", "+01", "1.0", "1e0", "１"
        return kind, _encoded({**cp, "version": draw(NUMBER_TEXT)})
    if kind == "not_object":
        return kind, _encoded(draw(JSON_NOT_OBJECT | st.just([cp])))
    if kind == "falsy":  # JSON whose value is false in Python: a load that takes "not state" for "no checkpoint"
        return kind, _encoded(draw(st.sampled_from([{}, [], None, 0, False, ""])))
    if kind == "missing_fields":
        # always the version among them: a file with a version 1 and fewer fields is the lesson's to return
        gone = {"version", *draw(st.lists(st.sampled_from(CHECKPOINT_FIELDS), max_size=5, unique=True))}
        return kind, _encoded({key: value for key, value in cp.items() if key not in gone})
    if kind == "not_utf8":
        # not UTF-16: json.loads of the bytes reads it right, and a load that accepts it misreads nothing. Each
        # encoding's own characters beyond ASCII (what it cannot encode becomes "?"): read with errors="replace" or
        # "ignore", the file is still a whole checkpoint, so only a load that insists on UTF-8 refuses it
        encoding = draw(st.sampled_from(("gbk", "latin-1")))
        extra = "：纪要" if encoding == "gbk" else "：résumé"
        return kind, json.dumps({**cp, "task": cp["task"] + extra}, ensure_ascii=False).encode(encoding, errors="replace")
    if kind == "trailing_data":  # a whole checkpoint, then what a write over a longer file without truncating it
        # leaves (the old file's tail), or zeros: json.loads calls it "Extra data", and so must a load
        tail = draw(st.one_of(st.builds(lambda n: b"\0" * n, st.integers(1, 64)),
                              st.builds(lambda old, cut: old[cut:], st.just(_encoded({**cp, "task": cp["task"] * 3})),
                                        st.integers(1, len(text) - 1))))
        return kind, text + tail
    if kind == "unreadable":  # a whole checkpoint, which no one without privileges may read
        return kind, FileData(text, mode=0o000)
    return kind, FOLDER


BROKEN_KINDS = ("truncated", "trailing_data", "empty", "higher", "lower", "text_version", "number_text", "not_object", "falsy",
                "missing_fields", "not_utf8", "folder", "unreadable")


# -- states JSON cannot hold: a drawn checkpoint with one value replaced by a mark of autograder.child.python_value,
# which the step (and the oracle, here) turns into the Python value --
UNJSONABLE = {
    "set": st.lists(TEXT, min_size=1, max_size=3, unique=True).map(lambda items: {"$set": items}),
    "bytes": TEXT.map(lambda text: {"$bytes": text}),
    "tuple_key": st.builds(lambda first, second, value: {"$tuple_keys": [[[first, second], value]]}, TEXT, TEXT, TEXT),
    "sdk_object": TEXT.map(lambda text: {"$sdk_text_block": text}),  # a response's block kept as the SDK's object
}
UNJSONABLE_KINDS = tuple(UNJSONABLE)


def _places(value, at=()) -> list:
    """The key paths of the values inside `value` that are neither a dict nor a list."""
    if isinstance(value, dict):
        return [place for key, item in value.items() for place in _places(item, (*at, key))]
    if isinstance(value, list):
        return [place for index, item in enumerate(value) for place in _places(item, (*at, index))]
    return [at]


@st.composite
def unjsonable_states(draw, kind: str) -> dict:
    """{"$python": checkpoint}: a checkpoint with a value of this kind anywhere in its messages or its pending
    call, so that a save fails early or late in the file."""
    cp = draw(checkpoints(ANY_CALL, draw(st.sampled_from(("pending", "result"))), exchanges=(0, 2)))
    *inner, last = draw(st.sampled_from(_places({key: cp[key] for key in ("messages", "pendingToolUse")})))
    holder = cp
    for key in inner:
        holder = holder[key]
    holder[last] = draw(UNJSONABLE[kind])
    return {"$python": cp}


@st.composite
def reply_plans(draw) -> list:
    """The shapes of the replies (course.model.shaped) of a few short runs of run_agent, one list per run: each
    run ends on its own ending shape, and the tool-call shapes, with two replies as the scripted model gives
    them, are spread over the runs before their endings, at least one in each (so every run calls a tool, and
    two runs call the same first one). Every shape is in every grading run, in a drawn place."""
    endings = draw(st.permutations(ENDING_SHAPES))
    calls = draw(st.permutations((*TOOL_CALL_SHAPES, None, None)))
    cuts = sorted(draw(st.lists(st.integers(1, len(calls) - 1), min_size=len(endings) - 1,
                                max_size=len(endings) - 1, unique=True)))
    bounds = [0, *cuts, len(calls)]
    return [[*calls[bounds[number]:bounds[number + 1]], ending] for number, ending in enumerate(endings)]
