"""What counts as the same answer: the equivalences the lessons allow, written once.

The hidden tests compare a student's result with the reference's (run on the same
input) only through this module. Each equivalence comes from the lesson's own text or
from the Messages API, and has its own test in tests/test_contract.py:

- JSON data is compared as data: key order never matters, but 1, 1.0, True and "1"
  are four different values (`same`).
- A message's content may be a string or a list of text blocks with the same text: the
  API reads both alike, and the lesson says so for a tool_result (`normal_content`).
  So the task may reach the model as a string or as one text block.
- A tool_result without `content` is one with content "" or [] (the API's content is optional: its SDK's
  ToolResultBlockParam leaves it out; empty, it is refused only with `is_error: true`, in all three forms alike).
- A tool_result without `is_error` is one with `is_error: False` (the API's default);
  `"true"` or 1 is no boolean and never counts as either (`normal_block`). Any other key
  with a null value is not a key left out: a block from the SDK's `model_dump()` carries
  `caller: null`, which the API's tool_use parameters do not allow (the notebook's visible
  check says so too).
- Lesson 4 judges a tool_result's is_error by what the result is (`error_flag_right`): a call nobody knows the
  outcome of is flagged True; a definite success is not flagged; a definite failure (an output beginning with
  "错误", lesson 3's failure) may be flagged True, as lesson 3's run_agent and reconcile do, or not, as lesson 4's
  reference does (its run_agent is lesson 3's, "其余一切照旧"). `"true"` is no flag either way. Lesson 3 asks for
  the flag on a failure, as its reference has it, so there is_error is compared as it is.
- A tool_result carries the tool's output: words around it are allowed (and leaving off
  the whitespace around it), another output is not (`carries_output`). The result of a
  call that was not run says in words that its outcome is unknown: the wording is free,
  an empty text is not (`free_text`).
- A function that "returns the checkpoint" may return a new dict or the argument it
  changed: what counts is what it returned (`returned_state`). A function that only
  decides must leave its argument as it was (`untouched`).
- A checkpoint has exactly the six fields of format version 1: an extra field is a
  difference, and so is a pendingToolUse with more than id, name and input
  (`checkpoint_differences`).
- An error is judged by its kind: ValueError or any subclass for a file that is not a
  checkpoint; an OSError other than FileNotFoundError, never turned into a ValueError,
  for a file that cannot be read (`error_kind`).
- A function whose result the lesson gives as a list of records (lesson 4's read_ledger,
  `RETURNS_A_LIST`) may return any iterable of them, a generator say: `for record in
  read_ledger(...)` and `list(read_ledger(...))` read it alike. It is read as the list it
  yields (`listed`), inside the sandbox, so a generator's code runs as part of the step.
- What a function prints or logs is not judged: the sandbox sends stdout and stderr
  nowhere, and no check reads them.
"""
import json

# the visible checks read a content, a tool's output in it and a checkpoint the same way
from course.checks import CHECKPOINT_FIELDS, carries_output, text_of  # noqa: F401 (carries_output: for the hidden tests)
PENDING_FIELDS = ("id", "name", "input")
FAILED = "错误"  # how a tool's output that says it failed begins (lesson 3: execute_tool words a failure so)
OS_ERROR_NAMES = frozenset(cls.__name__ for cls in (OSError, *OSError.__subclasses__())) - {"FileNotFoundError"}
UNKNOWN = object()  # the outcome of a call that was not run: its result's wording is free, is_error True
MISSING = object()  # what first_difference finds where one side has no such key or item


RETURNS_A_LIST = frozenset({"read_ledger"})  # the functions whose result is a list of records


def listed(value):
    """A result that is to be a list of records, as the contract reads it: any iterable but a text, bytes or a dict
    (a generator, a tuple) as the list it yields; anything else as it is."""
    if isinstance(value, (list, str, bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
        return value
    return list(value)


def same(a, b) -> bool:
    """Equal as JSON data, whatever the key order; a bool, an int, a float and a str never equal each other."""
    if type(a) is not type(b):
        return False
    if not isinstance(a, (dict, list)):
        return a == b
    if a != b:  # Python's == is looser (1 == 1.0 == True), so unequal there is unequal here: decided in C
        return False
    try:  # equal but for those: JSON tells 1, 1.0 and true apart, and sorts the keys
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):  # not JSON data (a set, a key of mixed types, a loop)
        return _same_strictly(a, b)


def _same_strictly(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_strictly(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_strictly(x, y) for x, y in zip(a, b))
    return a == b


def normal_content(content):
    """A content in one form: a string becomes one text block; blocks are put in normal form one by one.

    Text blocks in a row are joined, since the model reads them as one text; anything that is no
    content (a number, None) is left as it is, so it never equals a real one.
    """
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return content
    blocks = []
    for block in content:
        block = normal_block(block)
        if (blocks and _is_plain_text(block) and _is_plain_text(blocks[-1])):
            blocks[-1] = {"type": "text", "text": blocks[-1]["text"] + block["text"]}
        elif not (_is_plain_text(block) and not block["text"]):
            blocks.append(block)
    return blocks


def _is_plain_text(block) -> bool:
    return isinstance(block, dict) and block.keys() == {"type", "text"} and block["type"] == "text" \
        and isinstance(block["text"], str)


def normal_block(block):
    """A content block in normal form: a tool_result's content normalised (left out when empty), `is_error: False`
    left out."""
    if not isinstance(block, dict) or block.get("type") != "tool_result":
        return block
    block = dict(block)
    content = normal_content(block.pop("content", ""))
    if content != []:  # no content, "" and [] are one empty result: the API's content is optional
        block["content"] = content
    if block.get("is_error", UNKNOWN) is False:
        del block["is_error"]
    return block


def normal_message(message):
    if not isinstance(message, dict) or "content" not in message:
        return message
    return {**message, "content": normal_content(message["content"])}


def same_messages(a, b) -> bool:
    """Two conversations the API reads alike."""
    if not isinstance(a, list) or not isinstance(b, list):
        return False
    return same([normal_message(m) for m in a], [normal_message(m) for m in b])


def same_message(a, b) -> bool:
    return same_messages([a], [b])


def failed(output) -> bool:
    """Whether a tool's output says the tool failed: it begins with "错误" (lesson 3's definition)."""
    return isinstance(output, str) and output.startswith(FAILED)


def error_flag_right(flag, output) -> bool:
    """Lesson 4: whether `flag`, a tool_result's is_error (MISSING where left out), is right for a result whose
    outcome is `output`: the tool's definite output, or UNKNOWN for a call nobody knows the outcome of (the flag is
    then required). A failed tool's result may be flagged or not; a success's may not be."""
    if output is UNKNOWN:
        return flag is True
    return flag is MISSING or flag is False or (flag is True and failed(output))


def first_difference(a, b, results=None, flags=None):
    """Where conversation `a` first differs from the wanted `b` as the API reads them (`same_messages`; `results`
    as in `checkpoint_differences`): (where, a's value there, b's value there), e.g.
    ("messages[3].content[0].is_error", True, MISSING); None if they do not. `MISSING` stands for a key or an
    item one side lacks. `flags`: tool_use_id -> the outcome (the output, or UNKNOWN) that tool_result's is_error is
    judged on by `error_flag_right`, instead of comparing it with the wanted one (lesson 4)."""
    if isinstance(a, list) and isinstance(b, list):
        a, b = [normal_message(m) for m in a], [normal_message(m) for m in b]
    return _first_difference(a, b, results or {}, flags or {}, "messages")


def _first_difference(a, b, results: dict, flags: dict, at: str):
    if type(a) is not type(b) or not isinstance(a, (dict, list)):
        return None if same(a, b) else (at, a, b)
    if isinstance(a, list):
        for index in range(max(len(a), len(b))):
            found = _first_difference(a[index] if index < len(a) else MISSING, b[index] if index < len(b) else MISSING,
                                      results, flags, f"{at}[{index}]")
            if found:
                return found
        return None
    answers = b.get("tool_use_id") if b.get("type") == "tool_result" else None
    judge = results.get(answers)
    if judge is not None:
        if not judge(a.get("content")):
            return f"{at}.content", a.get("content", MISSING), b.get("content", MISSING)
        a, b = _without(a, "content"), _without(b, "content")
    if answers in flags:
        if not error_flag_right(a.get("is_error", MISSING), flags[answers]):
            return f"{at}.is_error", a.get("is_error", MISSING), b.get("is_error", MISSING)
        a, b = _without(a, "is_error"), _without(b, "is_error")
    for key in [*a, *(key for key in b if key not in a)]:
        found = _first_difference(a.get(key, MISSING), b.get(key, MISSING), results, flags, f"{at}.{key}")
        if found:
            return found
    return None


def free_text(content) -> bool:
    """A content whose wording is free: any text will do, none will not."""
    return bool(text_of(content).strip())


def returned_state(value):
    """The checkpoint a function that returns one handed back (a new dict or its changed argument), else None."""
    return value if isinstance(value, dict) else None


def untouched(before, after) -> bool:
    """Whether a function that only decides left its argument as it was given."""
    return same(before, after)


def checkpoint_differences(state, expected: dict, results=None) -> list:
    """The fields of checkpoint `state` that differ from `expected`, in the order of the format; an extra
    field is named too. `results`: tool_use_id -> a judge of that tool_result's content (`free_text`, or
    `carries_output` of the output), used instead of comparing it with the expected one."""
    if not isinstance(state, dict):
        return list(CHECKPOINT_FIELDS)
    wrong = [key for key in CHECKPOINT_FIELDS
             if key not in state or not _same_field(key, state[key], expected.get(key), results or {})]
    return wrong + extra_fields(state)


def without_extra(state):
    """Checkpoint `state` without the fields the format does not have: a field the student's save adds to the file (a
    time stamp) is judged once, by the check that a save reads back as it was given (probe 15b,
    wrong_save_adds_saved_at: it was also taken for a lost rename, with advice to fsync a folder it fsynced)."""
    return {key: value for key, value in state.items() if key in CHECKPOINT_FIELDS} if isinstance(state, dict) else state


def extra_fields(state) -> list:
    """The keys of checkpoint `state` that the format does not have, sorted."""
    return sorted(key for key in state if key not in CHECKPOINT_FIELDS) if isinstance(state, dict) else []


def _same_field(key: str, value, expected, results: dict) -> bool:
    if key == "messages":
        return _same_judging_results(value, expected, results)
    if key == "pendingToolUse" and isinstance(value, dict):
        return value.keys() == set(PENDING_FIELDS) and same(value, expected)
    return same(value, expected)


def _same_judging_results(messages, expected, results: dict) -> bool:
    if not results:
        return same_messages(messages, expected)
    if not isinstance(messages, list) or not isinstance(expected, list) or len(messages) != len(expected):
        return False
    return all(_same_message_judging(normal_message(m), normal_message(e), results)
               for m, e in zip(messages, expected))


def _without(block: dict, key: str) -> dict:
    return {k: v for k, v in block.items() if k != key}


def _same_message_judging(message, expected, results: dict) -> bool:
    if not isinstance(message, dict) or not isinstance(expected, dict):
        return False
    content, wanted = message.get("content"), expected.get("content")
    if not isinstance(content, list) or not isinstance(wanted, list) or len(content) != len(wanted):
        return same(message, expected)
    for block, want in zip(content, wanted):
        judge = results.get(want.get("tool_use_id")) if isinstance(want, dict) and want.get(
            "type") == "tool_result" else None
        if judge is None:
            if not same(block, want):
                return False
        elif not isinstance(block, dict) or not judge(block.get("content")) or not same(
                _without(block, "content"), _without(want, "content")):
            return False
    return same(_without(message, "content"), _without(expected, "content"))


def error_kind(error) -> str:
    """ "value_error", "os_error" (not a missing file) or "other", for an exception or the child's report of
    one ({"type": class name, "value_error": whether it is a ValueError})."""
    if isinstance(error, BaseException):
        if isinstance(error, ValueError):
            return "value_error"
        return "os_error" if isinstance(error, OSError) and not isinstance(error, FileNotFoundError) else "other"
    if not isinstance(error, dict):
        return "other"
    if error.get("value_error"):
        return "value_error"
    return "os_error" if error.get("type") in OS_ERROR_NAMES else "other"


def json_size(value) -> int:
    """How big an input is, for showing the smallest one that fails."""
    return len(json.dumps(value, ensure_ascii=False, default=repr))
