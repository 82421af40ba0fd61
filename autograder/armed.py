"""Code the student's code leaves armed in the interpreter: what runs later with no thread, process, callback on the
event loop or real-time alarm, set off by what a kernel does anyway in the cells that come next. In a notebook it goes
off then (and may send an email again); the grader ends the step's process first and cannot see what it would do, so
it says so (protocol.Left):

- an audit hook (sys.addaudithook, or PySys_AddAuditHook through ctypes): called at each import, open, exec...;
- a CPU-time timer (setitimer's ITIMER_PROF, ITIMER_VIRTUAL): it delivers its signal once the kernel has used that
  much CPU time, in later cells; never while idle, so waiting for it is no use (the real-time one, ITIMER_REAL and
  signal.alarm, goes off while idle: child.py waits for it after the steps);
- garbage that makes itself again: an object whose __del__ makes another of its kind, so that each collection
  leaves a new one behind (unless it became garbage only once it was old: docs/grading.md, section 2);
- a callable added, or put in place of another, where the interpreter or IPython calls by itself (`_places`): gc
  callbacks, profile and trace functions, import finders and path hooks, sys's and threading's hooks, builtins'
  __import__, sys.stdout and sys.stderr; the IPython shell's custom exception handler, input and AST transformers,
  display formatters, event callbacks and its own attributes and methods. Only what comes from code other than the
  installed packages, the standard library and the grader counts (`_from_student`): the student's cells, the course
  bundle, files the student wrote. Libraries that an honest answer uses register their own (`%matplotlib inline`'s
  post_execute callback, a display formatter); a hook that wraps the student's code (functools.partial, a bound
  method, an object's __call__, a closure such as IPython's set_custom_exc makes) counts as the student's.

Signal handlers alone are not armed: a kernel's signals come from outside (a SIGTERM handler that saves a checkpoint
is honest code); only a timer that will deliver a signal is.

Inside the sandbox, beside autograder.child; `watch()` starts in the student's process before any student code runs.
"""
import builtins
import functools
import gc
import os
import signal
import sys
import sysconfig
import threading
import types

from .protocol import Left

# bit i of `watch()`'s answer; child.LEFT_ARMED plus a mask of 7 bits stays an exit code (< 256)
ARMED = (Left.AUDIT_HOOK, Left.GC_CALLBACK, Left.TRACER, Left.REVIVING_GARBAGE, Left.CPU_TIMER,
         Left.INTERPRETER_HOOK, Left.SHELL_HOOK)
# Collections after a first one that each still find garbage: a finalizer making more of its kind. What honest code
# leaves behind is gone after one or two (a finalizer's own leftovers: an exception and its frames, say).
REVIVING_COLLECTIONS = 3
# Of the young generations only: an object a finalizer makes is young, and a full collection in the step's process
# scans (and so copies) the zygote's whole heap, some 0.3 s a process (docs/grading.md, section 2)
YOUNG = 1
CPU_TIMERS = (signal.ITIMER_PROF, signal.ITIMER_VIRTUAL)
# How many layers of what wraps code (a partial, a method, a closure, a class, an object) are opened to find whose it is
WRAPPING_DEPTH = 4
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (in Python), not one of the interpreter's own
# Audit events that make code under a file name of the caller's choosing: under an installed file's name, code of the
# student's would pass for a library's (`_from_student`)
NAMING_EVENTS = {"compile": 1, "code.__new__": 1}  # event -> position of the file name in its arguments
# Captured at import, in the zygote: what the student's code rebinds in these modules changes nothing here
_callbacks, _collect = gc.callbacks, gc.collect  # the list the collector itself calls
_add_audit_hook, _getframe = sys.addaudithook, sys._getframe
_tracer_getters = (sys.getprofile, sys.gettrace, threading.getprofile, threading.gettrace)
_getitimer, _startswith, _str = signal.getitimer, str.startswith, str
_type, _vars, _id, _issubclass, _mro = type, vars, id, issubclass, type.__dict__["__mro__"].__get__
_FunctionType, _MethodType, _CodeType, _partial = types.FunctionType, types.MethodType, types.CodeType, \
    functools.partial
_Builtin, _wrappers = types.BuiltinFunctionType, (staticmethod, classmethod, property)
# Where installed code is: the standard library, the packages, the grader's own folder (also resolved: the
# interpreter may be reached through a link); and the frozen modules
_INSTALLED = tuple({os.path.join(path, "") for name in ("stdlib", "platstdlib", "purelib", "platlib")
                    for path in (sysconfig.get_paths()[name], os.path.realpath(sysconfig.get_paths()[name]))} |
                   {os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "autograder", ""),
                    "<frozen "})


def watch(shell=None):
    """Starts watching the interpreter (and `shell`, the kernel's IPython shell); returns `armed()`, which, asked
    after the steps, says what the code run since left armed: a bit mask over ARMED (0: nothing). An audit hook cannot
    be removed or listed: one of the grader's own, added here, counts the others as they are added (the audit event of
    adding a hook is raised to those already there), and sees code made under an installed file's name. It costs a
    Python call per audited event, well under a microsecond."""
    hooks_added = [0]
    named_as_installed = []

    def audit(event, args, adding="sys.addaudithook", naming=NAMING_EVENTS):
        if event == adding:
            hooks_added[0] += 1
        elif event in naming and _named_installed(args[naming[event]], named_as_installed) and not _by_installed():
            named_as_installed.append(True)

    _add_audit_hook(audit)
    # id -> the thing itself, held so that no new object takes its id
    before = {kind: {_id(thing): thing for thing in found} for kind, found in _places(shell).items()}

    def armed() -> int:
        student = named_as_installed[:1]  # once anything passed for installed code, none is trusted
        added = {kind: any(_id(thing) not in before[kind] and _counts(thing, student) for thing in found)
                 for kind, found in _places(shell).items()}
        found = (hooks_added[0] > 0, added[Left.GC_CALLBACK], added[Left.TRACER], _reviving(),
                 any(_getitimer(timer)[0] > 0 for timer in CPU_TIMERS), added[Left.INTERPRETER_HOOK],
                 added[Left.SHELL_HOOK])
        return sum(1 << bit for bit, yes in enumerate(found) if yes)

    return armed


def armed_kinds(mask: int) -> list:
    """What a mask of `watch()`'s answer names (protocol.Left)."""
    return [kind for bit, kind in enumerate(ARMED) if mask >> bit & 1]


def _places(shell) -> dict:
    """kind -> what is now in each place the interpreter or IPython calls by itself later."""
    return {
        Left.GC_CALLBACK: list(_callbacks),
        Left.TRACER: [getter() for getter in _tracer_getters],
        Left.INTERPRETER_HOOK: [*sys.meta_path, *sys.path_hooks, *sys.path_importer_cache.values(),
                                sys.excepthook, sys.unraisablehook, sys.displayhook, sys.breakpointhook,
                                sys.stdout, sys.stderr, threading.excepthook, builtins.__import__],
        Left.SHELL_HOOK: [] if shell is None else _shell_hooks(shell),
    }


def _shell_hooks(shell) -> list:
    """What the IPython shell calls by itself in a later cell: its input transformers (before and after IPython's own
    ones, line and token ones), AST transformers, event callbacks, display formatters and what they print with, and
    its own attributes and methods (set_custom_exc's handler is one, CustomTB)."""
    transforms = shell.input_transformer_manager
    display = shell.display_formatter
    formatters = [*display.formatters.values(), display.ipython_display_formatter, display.mimebundle_formatter]
    printers = [printer for formatter in formatters
                for table in (formatter.singleton_printers, formatter.type_printers, formatter.deferred_printers)
                for printer in table.values()]
    callbacks = [callback for listed in shell.events.callbacks.values() for callback in listed]
    own = [value for owner in (shell, *_type(shell).__mro__) for value in _vars(owner).values()]
    return [*shell.input_transformers_post, *transforms.cleanup_transforms, *transforms.line_transforms,
            *transforms.token_transformers, *shell.ast_transformers, *callbacks, transforms, display, shell.events,
            *formatters, *printers, *own]


def _from_student(thing, student=(), depth=WRAPPING_DEPTH) -> bool:
    """Whether calling `thing` runs code that is not installed (`_installed`): its function's, or that of what it
    wraps (a partial's function and arguments, a bound method's function and object, a closure's cells, a class's
    methods, an object's class and attributes)."""
    if depth == 0:
        return False
    kind = _type(thing)
    if kind is _CodeType:
        return not _installed(thing.co_filename, student)
    if kind is _FunctionType:
        cells = [_contents(cell) for cell in thing.__closure__ or ()]
        return _any_from_student([thing.__code__, *cells], student, depth)
    if kind is _partial:
        return _any_from_student([thing.func, *thing.args, *thing.keywords.values()], student, depth)
    if kind is _MethodType:
        return _any_from_student([thing.__func__, thing.__self__], student, depth)
    if kind in _wrappers:
        return _any_from_student([getattr(thing, name, None) for name in ("__func__", "fget", "fset")], student, depth)
    if kind is _Builtin:
        return _from_student(thing.__self__, student, depth - 1)
    if _issubclass(kind, type):
        return _any_from_student([value for cls in _mro(thing) if cls.__flags__ & HEAP_TYPE
                                  for value in _vars(cls).values()], student, depth)
    if not kind.__flags__ & HEAP_TYPE:
        return False  # a value of the interpreter's own: a number, a string, a list, a module, a C function
    attributes = [value for value in _vars(thing).values() if callable(value)] if hasattr(thing, "__dict__") else []
    return _any_from_student([kind, *attributes], student, depth)


def _counts(thing, student) -> bool:
    """`_from_student`; an object that raises while it is looked at is the student's (the interpreter's and the
    libraries' do not)."""
    try:
        return _from_student(thing, student)
    except BaseException:
        return True


def _any_from_student(things, student, depth) -> bool:
    return any(_from_student(thing, student, depth - 1) for thing in things)


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a cell not filled yet
        return None


def _installed(filename: str, student) -> bool:
    """Whether code of `filename` is installed code: the standard library's, a package's, the grader's. Not once
    student code was made under such a name (`student` then holds something)."""
    return not student and _startswith(filename, _INSTALLED)


def _named_installed(filename, student) -> bool:
    """`_installed`, for a file name an audit event gives (the interpreter's own is None)."""
    return _issubclass(_type(filename), _str) and _installed(filename, student)


def _by_installed() -> bool:
    """Whether the code that raised the audit event is installed code: importlib compiling a module from its source,
    IPython's autoreload compiling what changed in one."""
    return _installed(_getframe(2).f_code.co_filename, ())


def _reviving() -> bool:
    _collect(YOUNG)
    return all(_collect(YOUNG) for _ in range(REVIVING_COLLECTIONS))
