"""Code the student's code leaves armed in the interpreter: what runs later with no thread, process, timer or alarm,
set off by what a kernel does anyway in the cells that come next. In a notebook it goes off then (and may send an
email again); the grader ends the step's process first and cannot see what it would do, so it says so (protocol.Left):

- an audit hook (sys.addaudithook, or PySys_AddAuditHook through ctypes): called at each import, open, exec...;
- a gc callback (gc.callbacks): called at each garbage collection;
- a profile or trace function (sys.setprofile, sys.settrace, threading.setprofile, threading.settrace): called at
  each function call of the kernel's main thread, or of each thread started later;
- garbage that makes itself again: an object whose __del__ makes another of its kind, so that each collection
  leaves a new one behind (unless it became garbage only once it was old: docs/grading.md, section 2).

Inside the sandbox, beside autograder.child; `watch()` starts in the student's process before any student code runs.
"""
import gc
import sys
import threading

from .protocol import Left

ARMED = (Left.AUDIT_HOOK, Left.GC_CALLBACK, Left.TRACER, Left.REVIVING_GARBAGE)  # bit i of `watch()`'s answer
# Collections after a first one that each still find garbage: a finalizer making more of its kind. What honest code
# leaves behind is gone after one or two (a finalizer's own leftovers: an exception and its frames, say).
REVIVING_COLLECTIONS = 3
# Of the young generations only: an object a finalizer makes is young, and a full collection in the step's process
# scans (and so copies) the zygote's whole heap, some 0.3 s a process (docs/grading.md, section 2)
YOUNG = 1
# Captured at import, in the zygote: what the student's code rebinds in gc, sys or threading changes nothing here
_callbacks, _collect = gc.callbacks, gc.collect  # the list the collector itself calls
_add_audit_hook = sys.addaudithook
_tracer_getters = (sys.getprofile, sys.gettrace, threading.getprofile, threading.gettrace)


def watch():
    """Starts watching the interpreter; returns `armed()`, which, asked after the steps, says what the code run since
    left armed: a bit mask over ARMED (0: nothing). An audit hook cannot be removed or listed: one of the grader's own,
    added here, counts the others as they are added (the audit event of adding a hook is raised to those already
    there). It costs a Python call per audited event, well under a microsecond."""
    hooks_added = [0]

    def audit(event, args, adding="sys.addaudithook"):
        if event == adding:
            hooks_added[0] += 1

    _add_audit_hook(audit)
    callbacks = list(_callbacks)
    tracers = _tracers()

    def armed() -> int:
        added_callback = any(all(callback is not old for old in callbacks) for callback in list(_callbacks))
        traced = any(now is not before for now, before in zip(_tracers(), tracers))
        found = (hooks_added[0] > 0, added_callback, traced, _reviving())
        return sum(1 << bit for bit, yes in enumerate(found) if yes)

    return armed


def armed_kinds(mask: int) -> list:
    """What a mask of `watch()`'s answer names (protocol.Left)."""
    return [kind for bit, kind in enumerate(ARMED) if mask >> bit & 1]


def _tracers() -> tuple:
    return tuple(getter() for getter in _tracer_getters)


def _reviving() -> bool:
    _collect(YOUNG)
    return all(_collect(YOUNG) for _ in range(REVIVING_COLLECTIONS))
