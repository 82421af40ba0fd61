"""What the student's code leaves armed in the interpreter to run in a later cell (autograder.armed): each kind is
found, and what honest code leaves (garbage with finalizers, a callback it removed again, a library's hook, a SIGTERM
handler) is not. Each case runs in a process of its own forked from a zygote, as a step does (an audit hook cannot be
removed), with a kernel's IPython shell (guise.kernel_shell)."""
import json
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
    # timers: one of CPU time never goes off while the kernel is idle; a real-time one does (child.py waits for it)
    "itimer_prof": ("import signal\nsignal.setitimer(signal.ITIMER_PROF, 1.0)", ["cpu_timer"]),
    "itimer_virtual": ("import signal\nsignal.setitimer(signal.ITIMER_VIRTUAL, 0.5)", ["cpu_timer"]),
    "itimer_real": ("import signal\nsignal.setitimer(signal.ITIMER_REAL, 30)", []),
    "sigterm_handler": ("import signal\nsignal.signal(signal.SIGTERM, lambda *args: None)", []),
    # a signal the kernel's own work raises (a child of its ends: a later cell's subprocess.run, `!ls`)
    "sigchld_handler": ("import signal\nsignal.signal(signal.SIGCHLD, lambda *args: None)", ["interpreter_hook"]),
    "sigpipe_handler": ("import signal\ndef later(*args): pass\nsignal.signal(signal.SIGPIPE, later)",
                        ["interpreter_hook"]),
    "sigchld_default_again": ("import signal\nsignal.signal(signal.SIGCHLD, lambda *args: None)\n"
                              "signal.signal(signal.SIGCHLD, signal.SIG_DFL)", []),
    # where the interpreter calls by itself: the student's code counts, wrapped or not; a library's does not
    "meta_path": ("import sys\nclass Finder:\n    @staticmethod\n    def find_spec(*args): return None\n"
                  "sys.meta_path.insert(0, Finder)", ["interpreter_hook"]),
    "path_hook_partial": ("import functools, sys\ndef hook(tag, path): raise ImportError\n"
                          "sys.path_hooks.insert(0, functools.partial(hook, 'x'))", ["interpreter_hook"]),
    "importer_cache": ("import sys\nclass Finder:\n    def find_spec(self, *args): return None\n"
                       "sys.path_importer_cache['/nowhere'] = Finder()", ["interpreter_hook"]),
    "shell_attribute_added": ("get_ipython().later = lambda: None", ["shell_hook"]),
    "shell_class_method": ("type(get_ipython()).run_cell = lambda *args, **kwargs: None", ["shell_hook"]),
    "excepthook": ("import sys\nsys.excepthook = lambda *args: None", ["interpreter_hook"]),
    "unraisablehook_call_object": ("import sys\nclass Hook:\n    def __call__(self, info): pass\n"
                                   "sys.unraisablehook = Hook()", ["interpreter_hook"]),
    "threading_excepthook": ("import threading\nthreading.excepthook = lambda args: None", ["interpreter_hook"]),
    "excepthook_of_a_library": ("import sys, traceback\nsys.excepthook = traceback.print_exception", []),
    "stdout_of_a_library": ("import io, sys\nsys.stdout = io.StringIO()", []),
    "excepthook_restored": ("import sys\nsys.excepthook = lambda *args: None\nsys.excepthook = sys.__excepthook__",
                            []),
    # a library's code with the student's globals, a source text run by exec, a namespace code ran in: the student's
    "foreign_globals": ("import gc, posixpath, types\nnamespace = dict(vars(posixpath), os=None)\n"
                        "gc.callbacks.append(types.FunctionType(posixpath.join.__code__, namespace))", ["gc_callback"]),
    "library_function": ("import gc, posixpath\ngc.callbacks.append(posixpath.join)", []),
    "partial_exec": ("import functools, sys\nsys.path_hooks.insert(0, functools.partial(exec, 'x = 1', {}))",
                     ["interpreter_hook"]),
    "partial_with_namespace": ("import functools, runpy, sys\n"
                               "sys.path_hooks.insert(0, functools.partial(runpy.run_path, 'x.py', globals()))",
                               ["interpreter_hook"]),
    "partial_with_data": ("import functools, json, sys\nsys.path_hooks.insert(0, functools.partial(json.dumps, {}))",
                          []),
    # the kernel's event loop calls its task factory at each cell, its exception handler when a callback raises
    "task_factory": ("import asyncio\nfactory = lambda loop, coro, **kw: asyncio.Task(coro, loop=loop)\n"
                     "asyncio.get_event_loop().set_task_factory(factory)", ["interpreter_hook"]),
    "exception_handler": ("import asyncio\nasyncio.get_event_loop().set_exception_handler(lambda loop, context: None)",
                          ["interpreter_hook"]),
    # a module's function replaced: whoever calls it later runs the student's
    "module_function": ("import os\nreplace = os.replace\nos.replace = lambda *args, **kw: replace(*args, **kw)",
                        ["interpreter_hook"]),
    "course_function": ("import course.tools\ncourse.tools.execute_tool = lambda name, tool_input: ''",
                        ["interpreter_hook"]),
    "module_function_of_a_library": ("import functools, json\njson.dumps = functools.partial(json.dumps, indent=1)",
                                     []),
    "module_function_restored": ("import warnings\nshow = warnings.showwarning\n"
                                 "warnings.showwarning = lambda *args: None\nwarnings.showwarning = show", []),
    "module_data": ("import json, tempfile\njson.MY_SETTING = {'a': 1}\ntempfile.tempdir = '/tmp'", []),
    "module_function_added": ("import json\njson.after_dumps = lambda: None", ["interpreter_hook"]),
    # a library class's method, a method put on a library's object, the kernel's stdout or loop, a function's code
    # or an object's class swapped in place
    "class_method": ("import json\njson.JSONEncoder.iterencode = lambda self, o, _one_shot=False: iter(())",
                     ["interpreter_hook"]),
    "subclass_method_added": ("import pathlib\npathlib.PosixPath.write_text = lambda self, data, **kw: 0",
                              ["interpreter_hook"]),
    "object_method": ("import json\njson._default_encoder.encode = lambda o: ''", ["interpreter_hook"]),
    "stdout_method": ("import sys\nwrite = sys.stdout.write\nsys.stdout.write = lambda text: write('> ' + text)",
                      ["interpreter_hook"]),
    "loop_method": ("import asyncio\nloop = asyncio.get_event_loop()\nrun_once = loop._run_once\n"
                    "loop._run_once = lambda: run_once()", ["interpreter_hook"]),
    "class_swapped": ("import json\nclass Encoder(json.JSONEncoder):\n    def encode(self, o): return ''\n"
                      "json._default_encoder.__class__ = Encoder", ["interpreter_hook"]),
    "code_swapped": ("import json\ndef dumps(obj, **kw):\n    return ''\njson.dumps.__code__ = dumps.__code__",
                     ["interpreter_hook"]),
    "subclass_and_object_data": ("import json, logging\nclass Encoder(json.JSONEncoder):\n"
                                 "    def default(self, o): return sorted(o)\njson.dumps({1}, cls=Encoder)\n"
                                 "json._default_encoder.item_separator = ', '\nlogging.basicConfig(level=10)\n"
                                 "logging.root.addHandler(logging.NullHandler())", []),
    "named_as_a_library": ("import os, sys\nhook = compile('lambda *args: None', os.__file__, 'eval')\n"
                           "sys.excepthook = eval(hook)", ["interpreter_hook"]),
    # where IPython calls by itself, in the next cell
    "custom_exc": ("get_ipython().set_custom_exc((Exception,), lambda shell, *args, **kwargs: None)",
                   ["shell_hook"]),
    "input_transformer": ("get_ipython().input_transformers_post.append(lambda lines: lines)", ["shell_hook"]),
    "cleanup_transform": ("get_ipython().input_transformer_manager.cleanup_transforms.append(lambda lines: lines)",
                          ["shell_hook"]),
    "ast_transformer": ("import ast\nclass Same(ast.NodeTransformer):\n    def visit_Module(self, node): return node\n"
                        "get_ipython().ast_transformers.append(Same())", ["shell_hook"]),
    "event_callback": ("get_ipython().events.register('post_run_cell', lambda result: None)", ["shell_hook"]),
    "event_callback_of_a_library": ("from IPython.core.display_functions import clear_output\n"
                                    "get_ipython().events.register('post_execute', clear_output)", []),
    "formatter": ("get_ipython().display_formatter.formatters['text/plain'].for_type(dict, lambda *args: '')",
                  ["shell_hook"]),
    "shell_method": ("get_ipython().showtraceback = lambda *args, **kwargs: None", ["shell_hook"]),
    "display_and_magics": ("display({'a': 1})\nget_ipython().run_line_magic('load_ext', 'autoreload')\n"
                           "get_ipython().run_line_magic('autoreload', '2')", []),
}
# A zygote as the grader's (child.zygote): the kernel's shell, streams and the modules' listing made once; each case
# runs in a process forked from it, as a step does (an audit hook cannot be removed), and answers on a pipe of its own
ZYGOTE = """
import gc, json, os, sys, tempfile, traceback
import numpy
import course.tools
import autograder.armed
from autograder.armed import Modules, watch
from autograder.guise import kernel_loop, kernel_shell, kernel_streams
if sys.argv[1] == "unversioned":
    autograder.armed.VERSIONED = False
    autograder.armed.Words.read = lambda words: numpy.zeros(len(words), dtype=numpy.uint64)
shell = kernel_shell(tempfile.gettempdir())
streams = kernel_streams()
modules = Modules(also=streams, shell=shell)
gc.freeze()
for line in sys.stdin:
    case = json.loads(line)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            sys.stdout, sys.stderr = streams  # as in a step (child.py)
            defined, armed = watch(shell, kernel_loop(), modules)
            namespace = {"get_ipython": lambda: shell, "display": print}
            exec(compile(case["definitions"], "<definitions>", "exec"), namespace)
            defined()
            exec(compile(case["cell"], "<cell>", "exec"), namespace)
            answer = str(armed())  # no json here: the case may have replaced its functions
        except BaseException:
            answer = "error " + traceback.format_exc()
        os.write(write, answer.encode())
        os._exit(0)  # as a step ends: a timer of the cell's goes off in no shutdown
    os.close(write)
    with os.fdopen(read) as answer:
        text = answer.read()
    os.waitpid(pid, 0)
    print(json.dumps(text or "error the case's process died"), flush=True)
"""


@pytest.fixture(scope="module")
def zygotes():
    started = {}

    def run(cell: str, definitions: str = "", mode: str = "versioned") -> int:
        if mode not in started:
            started[mode] = subprocess.Popen([sys.executable, "-c", ZYGOTE, mode], cwd=ROOT, text=True,
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        zygote = started[mode]
        zygote.stdin.write(json.dumps({"cell": cell, "definitions": definitions}) + "\n")
        zygote.stdin.flush()
        answer = json.loads(zygote.stdout.readline() or '"error the zygote died"')
        assert not answer.startswith("error"), answer
        return int(answer)

    yield run
    for zygote in started.values():
        zygote.stdin.close()
        zygote.wait(timeout=30)


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_is_left_armed_is_named(case, zygotes):
    code, expected = CASES[case]
    assert armed_kinds(zygotes(code)) == expected



def test_dict_versions_are_read_here():
    """The fast path (only namespaces whose dict version changed are compared) works on the Pythons grading runs on
    (3.10 to 3.13); on a later one, armed falls back to comparing every namespace."""
    from autograder import armed

    assert armed.VERSIONED or sys.version_info >= (3, 14)


@pytest.mark.parametrize("case", ["module_function", "course_function", "module_function_of_a_library",
                                  "module_function_restored", "module_data", "module_function_added", "class_method",
                                  "object_method", "stdout_method", "subclass_and_object_data", "nothing"])
def test_without_dict_versions_nothing_is_missed(case, zygotes):
    """Where dicts keep no version (CPython 3.14 on: here every version reads 0), every namespace is compared whole:
    slower, never weaker."""
    code, expected = CASES[case]
    assert armed_kinds(zygotes(code, mode="unversioned")) == expected


NOTEBOOKS = ["module_function", "course_function", "module_function_added", "class_method", "subclass_method_added",
             "object_method", "stdout_method", "loop_method", "class_swapped", "code_swapped"]


@pytest.mark.parametrize("case", [*NOTEBOOKS, "excepthook", "gc_callback"])
def test_what_the_cells_put_in_place_is_the_notebooks(case, zygotes):
    """A module's function, a library class's method, a method on a library's object, the kernel's stdout or loop, a
    function's code or an object's class replaced by the cells (an experiment's fake send_email, a time.sleep that
    waits for nothing, json.JSONEncoder.default taught datetimes, a prefix on sys.stdout.write) is in place while
    every step runs, where what it does is judged, as in the student's kernel: not armed. The interpreter's own hooks
    set by the cells still are."""
    code, expected = CASES[case]
    assert armed_kinds(zygotes("", definitions=code)) == ([] if case in NOTEBOOKS else expected)


def test_a_reader_on_the_kernel_loop_is_work_left():
    """A reader on a descriptor of the student's (a timerfd, a socket) runs later on a kernel's loop, as call_later
    does: the loop still holds work (guise.holds_work); its own self-pipe is none."""
    import os

    from autograder.guise import holds_work, kernel_loop

    loop = kernel_loop()
    read, write = os.pipe()
    try:
        assert not holds_work(loop)
        loop.add_reader(read, lambda: None)
        assert holds_work(loop)
        loop.remove_reader(read)
        assert not holds_work(loop)
    finally:
        loop.close()
        os.close(read)
        os.close(write)


END = """
import os, sys
from autograder import child
child._clear_exit_functions()  # as each step does: what the imports registered is the zygote's
child._note_modules()  # ... and the modules are the zygote's (noted with sys.modules' version, as the zygote does)
class Held:
    def __del__(self):
        os.write(1, b"del ")
def anchor():
    pass
namespace = {"held": Held(), "anchor": anchor}
class Closing(child.logging.Handler):
    def close(self):
        os.write(1, b"logging ")
        super().close()
os.register_at_fork(before=lambda: os.write(1, b"fork "))
child.weakref.finalize(anchor, os.write, 1, b"finalize ")
child.threading._register_atexit(os.write, 1, b"threading ")
child.logging.getLogger("kept").addHandler(Closing())
class Kept:
    def __del__(self):
        os.write(1, b"module ")
holder = child.types.ModuleType("kept_by_a_module")
holder.kept = Kept()
sys.modules["kept_by_a_module"] = holder
del holder
child._as_a_kernel_ends(namespace)
os._exit(0)  # as a step ends: the interpreter's own exit would run threading's and logging's again
"""


def test_the_step_ends_as_a_kernel_does():
    """What a kernel runs later only when it forks (a shell command) or shuts down, which no one can list (the
    functions os.register_at_fork holds) or which the grader's os._exit skips (weakref.finalize's, the __del__ of
    what the namespace holds; threading's exit functions, logging.shutdown's closing of each handler, which logging's
    import registered with atexit in the zygote; what only a module the student's code put in sys.modules holds), runs
    at the step's end (child._as_a_kernel_ends), where what it does is judged."""
    ran = subprocess.run([sys.executable, "-c", END], cwd=ROOT, capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["fork", "threading", "finalize", "logging", "module", "del"], ran.stderr
