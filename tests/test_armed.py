"""What the student's code leaves armed in the interpreter to run in a later cell (autograder.armed): each kind is
found, and what honest code leaves (garbage with finalizers, a callback it removed again) is not. Each case runs in
a process of its own, as a step does: an audit hook cannot be removed."""
import subprocess
import sys

import pytest

from autograder.armed import armed_kinds
from autograder.notebook_code import ROOT

CHAIN = """
class Later:
    def __init__(self):
        self.me = self  # a cycle: only the collector frees it
    def __del__(self):
        Later()
Later()
"""
FINALIZED = """
class Leftover:
    def __init__(self):
        self.me = self
    def __del__(self):
        cycle = {}  # garbage of its own, once (as an exception a finalizer caught, with its frames)
        cycle["me"] = cycle
for _ in range(50):
    Leftover()
"""
CASES = {
    "nothing": ("x = [{'a': i} for i in range(10000)]", []),
    "audit_hook": ("import sys\nsys.addaudithook(lambda event, args: None)", ["audit_hook"]),
    "gc_callback": ("import gc\ngc.callbacks.append(lambda phase, info: None)", ["gc_callback"]),
    "gc_callback_removed": ("import gc\nf = lambda phase, info: None\ngc.callbacks.append(f)\ngc.callbacks.remove(f)",
                            []),
    "setprofile": ("import sys\nsys.setprofile(lambda *args: None)", ["tracer"]),
    "settrace": ("import sys\nsys.settrace(lambda *args: None)", ["tracer"]),
    "threading_setprofile": ("import threading\nthreading.setprofile(lambda *args: None)", ["tracer"]),
    "profile_unset": ("import sys\nsys.setprofile(lambda *args: None)\nsys.setprofile(None)", []),
    "reviving_garbage": (CHAIN, ["reviving_garbage"]),
    "finalized_garbage": (FINALIZED, []),
}
SCRIPT = """
import sys
from autograder.armed import watch
armed = watch()
exec(compile(sys.argv[1], "<cell>", "exec"), {})
print(armed())
"""


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_is_left_armed_is_named(case):
    code, expected = CASES[case]
    ran = subprocess.run([sys.executable, "-c", SCRIPT, code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert armed_kinds(int(ran.stdout)) == expected, ran.stderr
