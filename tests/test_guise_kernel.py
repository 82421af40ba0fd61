"""What a notebook's kernel has that the grader's step process now has too (autograder.guise): ipykernel's own
IPKernelApp and IPythonKernel behind the IPython shell, its connection file by ipykernel's API, the faulthandler
patch_io puts in place, OutStreams with an IOPub thread and the kernel's session, bytecode written as a kernel writes
it (docs/grading.md, section 6). Each was a way for a submission to behave well only
when graded (tests/grading/variants*/tamper_detect_*)."""

import pytest

from autograder.sandbox import Sandbox, Scenario, SubmissionTrouble, isolation_problem


@pytest.fixture(scope="module")
def sandbox():
    problem = isolation_problem()
    if problem is not None:
        pytest.skip(f"no namespaces on this machine: {problem}")
    with Sandbox() as box:
        yield box


def look_at(sandbox, name):
    scenario = Scenario("t", steps=[{"kind": "call", "name": name, "args": [], "kwargs": {}}], independent_steps=True)
    outcome = sandbox.run(scenario, [{"name": "code", "source": LOOKS}], SubmissionTrouble(), (), None)
    step = outcome.steps[0]
    assert step["status"] == "returned", step
    return step["value"]


LOOKS = '''
import faulthandler, os, sys, types
import course.tools


def kernel():
    from ipykernel.connect import get_connection_file
    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.kernelapp import IPKernelApp
    shell = get_ipython()
    app = IPKernelApp.instance()
    return {"initialized": IPKernelApp.initialized(), "kernel": type(shell.kernel).__name__,
            "is_kernel": isinstance(shell.kernel, IPythonKernel), "parent": shell.parent is shell.kernel,
            "app": shell.kernel.parent is app and app.kernel is shell.kernel and app.shell is shell,
            "connection_file": get_connection_file() == sys.argv[sys.argv.index("-f") + 1],
            "exists": os.path.isfile(get_connection_file())}


def fault():
    patched = not isinstance(faulthandler.enable, types.BuiltinFunctionType)
    faulthandler.enable()
    enabled = faulthandler.is_enabled()
    faulthandler.disable()
    return [patched, faulthandler.enable.__qualname__, enabled]


def streams():
    from ipykernel.iostream import IOPubThread
    from ipykernel.kernelapp import IPKernelApp
    session = IPKernelApp.instance().session
    return [[isinstance(stream.pub_thread, IOPubThread), stream.session is session, stream.topic.decode(),
             stream._master_pid == os.getpid(), stream.pub_thread._master_pid == os.getpid()]
            for stream in (sys.stdout, sys.stderr)]


def bytecode():
    return [sys.dont_write_bytecode, sys.flags.dont_write_bytecode, "PYTHONDONTWRITEBYTECODE" in os.environ]
'''


def test_the_shell_has_ipykernel_s_kernel_and_app_and_its_connection_file(sandbox):
    """get_ipython().kernel is an IPythonKernel, the shell's parent; its parent the IPKernelApp, initialized as in a
    kernel (launch_instance made it), whose connection file ipykernel.connect.get_connection_file() names: the one
    sys.argv names, there."""
    assert look_at(sandbox, "kernel") == {"initialized": True, "kernel": "IPythonKernel", "is_kernel": True,
                                          "parent": True, "app": True, "connection_file": True, "exists": True}


def test_faulthandler_is_patched_as_ipykernel_patches_it(sandbox):
    """IPKernelApp.patch_io puts a Python function in faulthandler.enable's place (and register's); it works."""
    assert look_at(sandbox, "fault") == [True, "IPKernelApp.patch_io.<locals>.enable", True]


def test_the_streams_have_an_iopub_thread_and_the_kernel_s_session(sandbox):
    assert look_at(sandbox, "streams") == [[True, True, "stream.stdout", True, True],
                                           [True, True, "stream.stderr", True, True]]


def test_bytecode_is_written_as_in_a_kernel(sandbox):
    assert look_at(sandbox, "bytecode") == [False, 0, False]
