"""Power cuts while a step writes a ledger: every state autograder.crash_states allows, read back.

The model is lesson 3's (autograder.crash_states, through autograder/hidden_tests/crashes.py's
`file_system`), applied to the ledger's file-system calls as strace recorded them, however the
code made them. A state is read back with the course's read_ledger: half a record at the end is
an append that never returned and reads as not written; anything else that is not whole records
is an error.
"""
import os

from autograder.hidden_tests.crashes import describe, file_system


def _files(outcome) -> dict:
    return {os.path.join(outcome.workdir, name): data if isinstance(data, bytes) else data.encode("utf-8")
            for name, data in outcome.scenario.files.items()}


def cuts(outcome, relative: str, step: int) -> list:
    """(kind, when, contents) for step `step` of the outcome, in the order things happened:
    "call" after each of its recorded file-system calls, "tool" at each of its tool calls (the grader
    got the request: the calls logged before it had been made), "end" once the step has returned, and again
    after each call that a thread or process it left behind made after that, and once all is over.
    `contents` is the set of what a power cut then could leave at `relative` (None: no file)."""
    target = os.path.join(outcome.workdir, relative)
    fs = file_system(_files(outcome))
    moments = [(e["at"], 0, "call", e) for e in outcome.fs_events if e["step"] <= step]
    moments += [(c["at"], c["seq"], "tool", c) for c in outcome.tool_calls if c["step"] == step]
    if step < len(outcome.returned_at) and outcome.returned_at[step] is not None:
        moments.append((outcome.returned_at[step], float("inf"), "returned", {}))
    found, returned = [], False
    for _, _, kind, record in sorted(moments, key=lambda moment: moment[:2]):
        if kind == "returned":
            returned = True
            found.append(("end", "在函数返回的那一刻", fs.after_power_cut(target)))
        elif kind == "call":
            fs.apply(record)
            if record["step"] != step:
                continue
            if returned:
                found.append(("end", f"在函数返回之后，它留下的线程或进程「{describe(record, outcome.workdir)}」之后",
                              fs.after_power_cut(target)))
            else:
                found.append(("call", f"在「{describe(record, outcome.workdir)}」之后", fs.after_power_cut(target)))
        else:
            found.append(("tool", f"在执行 {record.get('name')} 的那一刻", fs.after_power_cut(target)))
    found.append(("end", "在函数返回之后", fs.after_power_cut(target)))
    return found
