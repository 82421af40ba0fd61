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
  __import__, sys.stdout and sys.stderr, the kernel's event loop's task factory and exception handler; the IPython
  shell's custom exception handler, input and AST transformers, display formatters, event callbacks and its own
  attributes and methods; and, put there by a step (not by the cells: `watch`), any attribute of a module loaded
  before the student's code ran that now holds something else or was added (`Modules`: os.replace,
  warnings.showwarning, json.dump, the course's functions), of a class such a module holds (json.JSONEncoder.iterencode,
  pathlib.Path.write_text), a method put on an object it holds or on the kernel's sys.stdout or event loop
  (json._default_encoder.encode, sys.stdout.flush, _run_once) or a class put in place of such an object's
  (__class__), and the code of their functions changed in place (__code__), which whatever calls it later runs. Only
  what comes from code other than the installed packages, the standard library and the grader counts (`_from_student`):
  the student's cells, the course bundle, files the student wrote. Libraries that an honest answer uses register their
  own (`%matplotlib inline`'s post_execute callback, a display formatter); a hook that wraps the student's code
  (functools.partial, a bound method, an object's __call__, a closure such as IPython's set_custom_exc makes), an
  installed function given globals of the student's (not its module's), exec, eval or compile (they run source text
  only the student wrote), or a wrapper holding a namespace that code ran in other than a library module's, counts
  as the student's.

What a kernel does only when it forks (os.register_at_fork's functions, which cannot be listed) or shuts down
(atexit's functions, weakref.finalize's, the __del__ of what the namespace holds) is not looked for here: the step's
process does it at its end (child.py), and what it does is judged.

Signal handlers alone are not armed: most of a kernel's signals come from outside (a SIGTERM handler that saves a
checkpoint is honest code); a timer that will deliver a signal is. So is a handler of the student's for a signal the
kernel's own work raises (`KERNEL_SIGNALS`: SIGCHLD once a child it started ends, a later cell's subprocess.run or
`!ls`; SIGPIPE, SIGIO, SIGURG from its own sockets and pipes): an interpreter hook, called by itself in a later cell.

Inside the sandbox, beside autograder.child; `watch()` starts in the student's process before any student code runs.
"""
import builtins
import ctypes
import functools
import gc
import os
import signal
import sys
import sysconfig
import threading
import types

import numpy

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
KERNEL_SIGNALS = (signal.SIGCHLD, signal.SIGPIPE, signal.SIGIO, signal.SIGURG)
# How many layers of what wraps code (a partial, a method, a closure, a class, an object) are opened to find whose it is
WRAPPING_DEPTH = 4
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (in Python), not one of the interpreter's own
# Audit events that make code under a file name of the caller's choosing: under an installed file's name, code of the
# student's would pass for a library's (`_from_student`)
NAMING_EVENTS = {"compile": 1, "code.__new__": 1}  # event -> position of the file name in its arguments
# Where CPython keeps a dict's version, which every change of one of its values bumps (PEP 509; ma_version_tag after
# the object's header and ma_used): reading it touches nothing, where reading the values would write their reference
# counts and so copy the zygote's pages into each step (some 70 ms for its 86,000 module attributes)
DICT_VERSION_OFFSET = 3 * ctypes.sizeof(ctypes.c_ssize_t)
WORD = ctypes.sizeof(ctypes.c_uint64)


class _AddressSpace:
    """The process's memory as an array of words, from address WORD on (numpy takes a null address for none): no
    ctypes object made per address, which would raise an audit event ("ctypes.cdata") that `watch`'s hook is called
    for, some 1.5 us each."""
    __array_interface__ = {"shape": (sys.maxsize // WORD - 1,), "typestr": "<u8", "data": (WORD, True), "version": 3}


_memory = numpy.asarray(_AddressSpace())
# Where a function keeps its code (its __code__), and an object its class: read as a dict's version is, through the
# address alone
_probes = (lambda: None, lambda: 0)
CODE_OFFSET = next(offset for offset in range(2 * WORD, 256, WORD)
                   if all(_memory[(id(probe) + offset) // WORD - 1] == id(probe.__code__) for probe in _probes))
TYPE_OFFSET = ctypes.sizeof(ctypes.c_ssize_t)  # after the reference count: ob_type
_NOTHING = object()  # what a name stood for before it was added
# Captured at import, in the zygote: what the student's code rebinds in these modules changes nothing here
_callbacks, _collect = gc.callbacks, gc.collect  # the list the collector itself calls
_add_audit_hook, _getframe = sys.addaudithook, sys._getframe
_tracer_getters = (sys.getprofile, sys.gettrace, threading.getprofile, threading.gettrace)
_getitimer, _getsignal, _startswith, _str = signal.getitimer, signal.getsignal, str.startswith, str
_type, _vars, _id, _issubclass, _mro = type, vars, id, issubclass, type.__dict__["__mro__"].__get__
_FunctionType, _MethodType, _CodeType, _partial = types.FunctionType, types.MethodType, types.CodeType, \
    functools.partial
_Builtin, _wrappers = types.BuiltinFunctionType, (staticmethod, classmethod, property)
_dict_get, _modules, _getattr = dict.get, sys.modules, getattr
_SOURCE_RUNNERS = (exec, eval, compile)  # a hook made of one of these runs source text only the student wrote
# Where installed code is: the standard library, the packages, the grader's own folder (also resolved: the
# interpreter may be reached through a link); and the frozen modules
_INSTALLED = tuple({os.path.join(path, "") for name in ("stdlib", "platstdlib", "purelib", "platlib")
                    for path in (sysconfig.get_paths()[name], os.path.realpath(sysconfig.get_paths()[name]))} |
                   {os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "autograder", ""),
                    "<frozen "})


class Modules:
    """The modules loaded before any student code runs, made once in the zygote so that every step shares it: each
    one's namespace, the namespaces (dicts) of the classes it holds and of its other objects that have one (`owners`:
    for an object's, its class: only a name its class has counts there, one that a method of the class is looked up
    by), a copy of each (what each name held then), the word of memory each dict's version is in and that version then
    (`Words`); the functions of the modules and classes and the word each keeps its code in, the objects and the
    word each keeps its class in (`pointing`). A step reads the versions, code and classes through those words alone,
    and only the namespaces whose version changed: touching an object writes its reference count, and so copies the
    zygote's page it is on into the step."""

    def __init__(self, also=(), shell=None):
        """`also`: objects that are watched as if a module held them (the kernel's sys.stdout, put there later);
        `shell`: the kernel's IPython shell, whose attributes are listed here once (`Listed`)."""
        modules = [_vars(module) for module in list(_modules.values())
                   if _type(_getattr(module, "__dict__", None)) is dict]
        classes, objects = _held([value for namespace in modules for value in list(namespace.values())] + list(also))
        self.namespaces = [*modules, *(_type_dict(cls) for cls in classes), *(_vars(thing) for thing in objects)]
        self.owners = [None] * (len(modules) + len(classes)) + [_type(thing) for thing in objects]
        self.library = {_id(namespace) for namespace in modules}  # the functions of these have their globals
        self.copies = [dict(namespace) for namespace in self.namespaces]
        self.words = Words([_id(namespace) + DICT_VERSION_OFFSET for namespace in self.namespaces])
        self.versions = self.words.read()
        functions = list({_id(value): value for namespace in self.namespaces[:len(modules) + len(classes)]
                          for value in namespace.values() if _type(value) is _FunctionType}.values())
        self.pointing = [*functions, *objects]  # what a changed word makes the student's is the thing itself
        self.pointer_words = Words([*(_id(function) + CODE_OFFSET for function in functions),
                                    *(_id(thing) + TYPE_OFFSET for thing in objects)])
        self.pointers = self.pointer_words.read()
        self.listed = Listed(shell)


class Listed:
    """The big dicts among the places the interpreter or IPython calls by itself later: the import system's cache of
    finders, the shell's attributes and its classes' (some 620 values). Each dict's values are listed with its version
    (`listing`); a later listing lists again only a dict that is not the one listed before or whose version changed,
    and reuses the earlier one's otherwise. Listing touches each value, and so copies its page into the step: made
    once in the zygote, the listing costs a step nothing (some 2 ms a step before)."""

    def __init__(self, shell):
        self.shell = shell
        self.zygote = self.listing(())

    def listing(self, earlier) -> list:
        """[(kind, dict, version, {id: value})] for each of the dicts now, `earlier` (a listing) reused where it can."""
        dicts = [(Left.INTERPRETER_HOOK, sys.path_importer_cache)]
        if self.shell is not None:
            dicts += [(Left.SHELL_HOOK, _vars(self.shell)),
                      *((Left.SHELL_HOOK, _type_dict(cls)) for cls in _mro(_type(self.shell)))]
        versions = Words([_id(values) + DICT_VERSION_OFFSET for _, values in dicts]).read().tolist()
        reused = {(_id(values), version): held for _, values, version, held in earlier} if VERSIONED else {}
        return [(kind, values, version, reused.get((_id(values), version)) or
                 {_id(value): value for value in list(values.values())})
                for (kind, values), version in zip(dicts, versions)]


class Words:
    """Words of memory at given addresses (each a field of an object: a dict's version, a function's code, an
    object's class), read from `_memory` all at once into an array: one gather in C, about 50 us for the zygote's
    39,000, where making a Python int of each took 1.5 ms and wrote a new page of the step's memory every 128."""

    def __init__(self, addresses):
        self._indices = numpy.array([address // WORD - 1 for address in addresses], dtype=numpy.intp)

    def __len__(self):
        return len(self._indices)

    def read(self):
        return _memory[self._indices]


def _held(values) -> tuple:
    """The classes made at run time among `values` (and those they inherit from, and those of the other values), and
    the other values of such a class that keep their attributes in a dict."""
    classes, objects = {}, {}
    for value in values:
        kind = _type(value)
        is_class = _issubclass(kind, type)
        if _issubclass(kind, types.ModuleType) or not (is_class or kind.__flags__ & HEAP_TYPE):
            continue
        cls = value if is_class else kind
        classes.update((_id(base), base) for base in _mro(cls) if base.__flags__ & HEAP_TYPE)
        try:
            attributes = None if cls is value else _vars(value)
        except Exception:  # no __dict__ (slots), or one its __getattr__ would not give
            continue
        if _type(attributes) is dict:
            objects[_id(value)] = value
    return list(classes.values()), list(objects.values())


def _type_dict(cls) -> dict:
    """The dict a class keeps its attributes in (its __dict__ is a read-only view of it)."""
    return gc.get_referents(_vars(cls))[0]


def watch(shell=None, loop=None, modules=None):
    """Starts watching the interpreter (and `shell`, the kernel's IPython shell, `loop`, its event loop, and the
    attributes of `modules`, a Modules, made here if None); returns `defined()`, to be called once the notebook's cells
    are defined, and `armed()`, which, asked after the steps, says what the code run since left armed: a bit mask over
    ARMED (0: nothing). An audit hook cannot be removed or listed: one of the grader's own, added here, counts the
    others as they are added (the audit event of adding a hook is raised to those already there), and sees code made
    under an installed file's name. It costs a Python call per audited event, well under a microsecond. What changed
    in `modules` since they were made (the grader's own stand-ins) is where things start; what the cells put in place
    there or on `loop` is the notebook's from `defined()` on (an experiment's `time.sleep = ...`, a course function
    swapped for a fake, json.JSONEncoder.default taught datetimes, a prefix on sys.stdout.write, a function's
    __code__ or an object's __class__ swapped): in the student's kernel it is in place while every later cell runs,
    here while every step runs, where what it does is judged. Only what the steps put there counts."""
    hooks_added = [0]
    named_as_installed = []
    modules = modules or Modules()

    def audit(event, args, adding="sys.addaudithook", naming=NAMING_EVENTS):
        if event == adding:
            hooks_added[0] += 1
        elif event in naming and _named_installed(args[naming[event]], named_as_installed) and not _by_installed():
            named_as_installed.append(True)

    _add_audit_hook(audit)
    # id -> the thing itself, held so that no new object takes its id
    before = {kind: {_id(thing): thing for thing in found} for kind, found in _places(shell, loop).items()}
    listed = modules.listed if modules.listed.shell is shell else Listed(shell)
    listed_before = listed.listing(listed.zygote)

    def was_there(kind, thing) -> bool:
        return _id(thing) in before[kind] or any(_id(thing) in held for of, _, _, held in listed_before if of == kind)

    # What the grader's stand-ins changed since the zygote is copied with what the cells change, when they are defined
    versions, pointers, held = modules.versions, modules.pointers, {}
    on_loop = {} if loop is None else dict(_vars(loop))
    library = modules.library

    def defined():
        nonlocal versions, pointers, on_loop
        now, pointers = modules.words.read(), modules.pointer_words.read()
        held.update({index: dict(modules.namespaces[index]) for index in _changed(versions, now)})
        versions, on_loop = now, {} if loop is None else dict(_vars(loop))

    def armed() -> int:
        student = named_as_installed[:1]  # once anything passed for installed code, none is trusted
        places = _places(shell, loop)
        listed_now = listed.listing(listed_before)
        for kind, _, _, held in listed_now:  # what a dict listed again holds (one listed as before holds nothing new)
            if all(held is not earlier for _, _, _, earlier in listed_before):
                places[kind] += held.values()
        added = {kind: any(not was_there(kind, thing) and _counts(thing, student, library) for thing in found)
                 for kind, found in places.items()}
        # their kind names them (threading's)
        placed = {_id(thing) for found in places.values() for thing in found}.union(*(held for *_, held in listed_now))
        put = [*_replaced(modules, held, _changed(versions, modules.words.read())),
               *(modules.pointing[index] for index in _differing(pointers, modules.pointer_words.read())),
               *(() if loop is None else _put_in_place(_vars(loop), on_loop, _type(loop)))]
        replaced = any(_id(value) not in placed and _counts(value, student, library) for value in put)
        found = (hooks_added[0] > 0, added[Left.GC_CALLBACK], added[Left.TRACER], _reviving(),
                 any(_getitimer(timer)[0] > 0 for timer in CPU_TIMERS), added[Left.INTERPRETER_HOOK] or replaced,
                 added[Left.SHELL_HOOK])
        return sum(1 << bit for bit, yes in enumerate(found) if yes)

    return defined, armed


def armed_kinds(mask: int) -> list:
    """What a mask of `watch()`'s answer names (protocol.Left)."""
    return [kind for bit, kind in enumerate(ARMED) if mask >> bit & 1]


def _differing(before, now) -> list:
    """The indices where two arrays of words as long differ (ndarray's own methods, in C: no function the student's
    code could have changed the code of)."""
    return (before != now).nonzero()[0].tolist()


def _changed(versions, now) -> list:
    """The indices of the namespaces whose version is not the same in `now` (every index on a Python whose dicts
    keep no version there: slower, as each namespace is compared whole, but nothing is missed)."""
    if not VERSIONED:
        return list(range(len(versions)))
    return _differing(versions, now)


def _versions_tell_changes() -> bool:
    """Whether this interpreter keeps dict versions where `Modules` reads them (CPython 3.6 to 3.13)."""
    probe = {"value": None}
    word = Words([_id(probe) + DICT_VERSION_OFFSET])
    before = int(word.read()[0])
    probe["value"] = probe
    return int(word.read()[0]) != before


VERSIONED = _versions_tell_changes()  # else `_changed` would pass every module's attributes as untouched


def _replaced(modules, held, indices) -> list:
    """What now stands under a name of the namespaces at `indices` of `modules` where something else or nothing stood
    when the watch began or the cells were defined (`held`, else the zygote's copy)."""
    return [value for index in indices for value in
            _put_in_place(modules.namespaces[index], held[index] if index in held else modules.copies[index],
                          modules.owners[index])]


def _put_in_place(namespace, before, owner=None) -> list:
    """What now stands under a name of `namespace` where something else or nothing stood in `before`; in an object's
    (`owner`, its class), only under a name its class has: one a method of the class is looked up by."""
    return [value for name, value in list(namespace.items())
            if _type(name) is _str and value is not _dict_get(before, name, _NOTHING)
            and (owner is None or any(name in _vars(cls) for cls in _mro(owner)))]


def _places(shell, loop) -> dict:
    """kind -> what is now in each place the interpreter or IPython calls by itself later (the other attributes of
    the modules are `Modules`', the big dicts `Listed`'s)."""
    return {
        Left.GC_CALLBACK: list(_callbacks),
        Left.TRACER: [getter() for getter in _tracer_getters],
        Left.INTERPRETER_HOOK: [*sys.meta_path, *sys.path_hooks, sys.excepthook, sys.unraisablehook, sys.displayhook,
                                sys.breakpointhook, sys.stdout, sys.stderr, threading.excepthook, builtins.__import__,
                                *(_getsignal(number) for number in KERNEL_SIGNALS),
                                *(() if loop is None else (loop.get_task_factory(), loop.get_exception_handler()))],
        Left.SHELL_HOOK: [] if shell is None else _shell_hooks(shell),
    }


def _shell_hooks(shell) -> list:
    """What the IPython shell calls by itself in a later cell: its input transformers (before and after IPython's own
    ones, line and token ones), AST transformers, event callbacks, display formatters and what they print with (its
    own attributes and methods are `Listed`'s: set_custom_exc's handler is one, CustomTB)."""
    transforms = shell.input_transformer_manager
    display = shell.display_formatter
    formatters = [*display.formatters.values(), display.ipython_display_formatter, display.mimebundle_formatter]
    printers = [printer for formatter in formatters
                for table in (formatter.singleton_printers, formatter.type_printers, formatter.deferred_printers)
                for printer in table.values()]
    callbacks = [callback for listed in shell.events.callbacks.values() for callback in listed]
    return [*shell.input_transformers_post, *transforms.cleanup_transforms, *transforms.line_transforms,
            *transforms.token_transformers, *shell.ast_transformers, *callbacks, transforms, display, shell.events,
            *formatters, *printers]


def _from_student(thing, student=(), library=(), depth=WRAPPING_DEPTH) -> bool:
    """Whether calling `thing` runs code that is not installed (`_installed`): its function's, or that of what it
    wraps (a partial's function and arguments, a bound method's function and object, a closure's cells and a
    function's defaults, a class's methods, an object's class and attributes); or a function's whose globals are not
    its library module's (a namespace in `library`, or the one its module lists under its name), a source text's
    (exec, eval, compile), a namespace's that is not a library module's (code ran in it: it holds __builtins__)."""
    if depth == 0:
        return False
    kind = _type(thing)
    if kind is _CodeType:
        return not _installed(thing.co_filename, student)
    if kind is _FunctionType:
        inside = [thing.__code__, *(_contents(cell) for cell in thing.__closure__ or ()), *(thing.__defaults__ or ()),
                  *(thing.__kwdefaults__ or {}).values()]
        return not _library_namespace(thing.__globals__, library) or _any_from_student(inside, student, library,
                                                                                       depth)
    if kind is _partial:
        return _any_from_student([thing.func, *thing.args, *thing.keywords.values()], student, library, depth)
    if kind is _MethodType:
        return _any_from_student([thing.__func__, thing.__self__], student, library, depth)
    if kind in _wrappers:
        return _any_from_student([getattr(thing, name, None) for name in ("__func__", "fget", "fset")], student,
                                 library, depth)
    if kind is _Builtin:
        return thing in _SOURCE_RUNNERS or _from_student(thing.__self__, student, library, depth - 1)
    if kind is dict:  # what a wrapper holds; a place holding a namespace itself calls nothing
        return depth < WRAPPING_DEPTH and "__builtins__" in thing and not _library_namespace(thing, library)
    if _issubclass(kind, type):
        return _any_from_student([value for cls in _mro(thing) if cls.__flags__ & HEAP_TYPE
                                  for value in _vars(cls).values()], student, library, depth)
    if not kind.__flags__ & HEAP_TYPE:
        return False  # a value of the interpreter's own: a number, a string, a list, a module, a C function
    attributes = [value for value in _vars(thing).values() if callable(value)] if hasattr(thing, "__dict__") else []
    return _any_from_student([kind, *attributes], student, library, depth)


def _library_namespace(namespace, library) -> bool:
    """Whether `namespace` is a library module's: one loaded before the student's code (`library`, their ids), or one
    listed under its own name and loaded from an installed file."""
    if _id(namespace) in library:
        return True
    if _type(namespace) is not dict:
        return False
    module = _modules.get(_dict_get(namespace, "__name__"))
    return (_getattr(module, "__dict__", None) is namespace
            and _named_installed(_dict_get(namespace, "__file__"), ()))


def _counts(thing, student, library) -> bool:
    """`_from_student`; an object that raises while it is looked at is the student's (the interpreter's and the
    libraries' do not)."""
    try:
        return _from_student(thing, student, library)
    except BaseException:
        return True


def _any_from_student(things, student, library, depth) -> bool:
    return any(_from_student(thing, student, library, depth - 1) for thing in things)


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
