"""The effect ledger's file (lesson 4): where it lives and how it is read back after a crash.

The ledger is a JSON Lines file beside the checkpoint, one record a line, only
ever appended to: an "intent" record before a call with an effect runs, an
"outcome" record after it. Writing it durably is the lesson's exercise
(`append_ledger` in the notebook); reading it back is given here, because a
crash can leave one thing the reader must handle: half a line at the end.

It also holds the lesson's situations (S1-S6): a sample checkpoint, the ledger's
records for its pending call, and the state of the mail server, for the
exercise in which you name the recovery action of each.
"""
import json
import os
from pathlib import Path

from .samples import load_sample
from .tools import ServiceUnavailable, message_id_for, sent_text

LEDGER_NAME = "ledger.jsonl"


def ledger_path(checkpoint_path) -> Path:
    """The ledger of the task whose checkpoint is `checkpoint_path`: the same folder, its own file."""
    return Path(checkpoint_path).with_name(LEDGER_NAME)


def ledger_text(records) -> str:
    """The ledger's text holding `records`: one JSON object a line, as the lesson's append_ledger writes them."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def read_ledger(path) -> list[dict]:
    """Every complete record, oldest first; [] when there is no ledger yet.

    An append that a crash cut short leaves a last line without its line break. Its append never
    returned, so the record was never written: it is left out, and cut off the file (as databases do
    with a torn log tail), so that the next append starts on a line of its own. Any other line that is
    not a JSON object means the file is damaged: ValueError, in Chinese, naming the file.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    complete = data[:data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        fd = os.open(path, os.O_WRONLY)  # os.open: the crash probes must not take this repair for an append
        try:
            os.ftruncate(fd, len(complete))
            os.fsync(fd)
        finally:
            os.close(fd)
    records = []
    # lines end at "\n" only: json.dumps(ensure_ascii=False) leaves U+2028 and U+0085 in a record as they are
    for number, raw in enumerate(complete.split(b"\n")[:-1], start=1):
        line = raw.decode("utf-8", errors="replace")
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            raise ValueError(f"效果台账 {path} 第 {number} 行不是一条完整的记录，文件可能已损坏：{line[:60]!r}")
        records.append(record)
    return records


# --- the lesson's situations: a checkpoint, the ledger's records for its pending call, the server's state ----

SITUATIONS = {
    "S1": ("cpC", ("intent", "outcome"), "sent"),
    "S2": ("cpC", ("intent",), "sent"),
    "S3": ("cpC", ("intent",), "empty"),
    "S4": ("cpC", (), "empty"),
    "S5": ("cpC", ("intent",), "down"),
    "S6": ("cpB", (), "empty"),
}
SERVER_STATES = {"sent": "服务器上有这封信", "empty": "服务器上没有这封信", "down": "邮件服务器连不上"}


def records_for(call: dict, kinds) -> list[dict]:
    """The ledger records `run_agent` writes for `call` ({id, name, input}): "intent", then "outcome"."""
    records = []
    for kind in kinds:
        record = {"type": kind, "toolUseId": call["id"]}
        record.update({"name": call["name"], "input": call["input"]} if kind == "intent"
                      else {"output": delivered_text(call)})
        records.append(record)
    return records


def delivered_text(call: dict) -> str:
    """What the mail server says about the email `call` sent with its id as the key."""
    return sent_text(call["input"]["to"], call["input"]["subject"], message_id_for(call["id"]))


def server_lookup(state: str, delivered: dict | None):
    """A stand-in for `lookup_effect` answering as a server in `state` would; `delivered` is the call it got."""
    def lookup(name: str, key: str) -> str | None:
        if state == "down":
            raise ServiceUnavailable("邮件服务器无法回答：[Errno 111] Connection refused")
        if name != "send_email":
            raise ServiceUnavailable(f"{name} 背后的服务不支持按幂等键查询")
        return delivered_text(delivered) if state == "sent" and delivered and key == delivered["id"] else None
    return lookup


def load_situation(name: str) -> tuple[dict, list, object]:
    """(checkpoint, ledger records, lookup) of one of the lesson's situations."""
    sample, kinds, state = SITUATIONS[name]
    checkpoint = load_sample(sample)
    pending = checkpoint["pendingToolUse"]
    records = records_for(pending, kinds) if pending else []
    return checkpoint, records, server_lookup(state, pending)
