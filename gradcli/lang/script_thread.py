"""Run a script on a thread of its own, whose C stack is large enough for the recursion it may do.

The main thread's stack is the process's (often 8 MB): C code that recurses (a chain of
generators, ``sorted`` with a key calling itself, a user class's ``__eq__`` called by ``==``)
takes up to about 5 KB of it per level, so the interpreter's recursion limit that a script needs
(runtime.INTERPRETER_RECURSION_LIMIT) would overflow it and end the process with SIGSEGV.  The
script thread's stack is sized from that limit (tests/lang/test_depth.py measures the worst
levels).  Its pages are only reserved: memory is used as deep as the script goes.

Signals reach the main thread only: Ctrl-C and the time limit's alarm raise there, while it
waits, and are passed on to the script thread as the same exception (raised at its next
bytecode), so the script stops where it was and is reported there.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

# (bytes) 30 000 levels of the costliest recursion measured (~2.6 KB a level, `sorted` with a
# key), with room to spare; only the pages a script reaches are ever touched.
STACK_BYTES = 256 * 2**20

_script_threads: set[int] = set()   # idents of the threads running a script now


def in_script_thread() -> bool:
    """Whether this thread is a script thread already (a nested run needs no other)."""
    return threading.get_ident() in _script_threads


def run_in_script_thread(function: Callable[[], Any]) -> Any:
    """``function()`` on a new thread with a STACK_BYTES stack; its result, or its exception
    raised here.  A KeyboardInterrupt or other exception raised in this thread while it waits
    (a signal handler's) is raised in the script thread too, and the wait goes on."""
    if in_script_thread():
        return function()
    import contextvars
    context = contextvars.copy_context()   # NumPy's error state, set on the main thread, lives here
    outcome: list = []
    # (not Thread.join: interrupted by a signal, it may take the thread for finished too early)
    finished = threading.Event()
    state = {"running": True}
    lock = threading.Lock()   # an exception is raised in the thread only while it is running

    began = threading.Event()

    def target() -> None:
        _script_threads.add(threading.get_ident())
        began.set()
        try:
            try:
                result = (True, context.run(function))
            except BaseException as error:  # handed to the waiting thread, which raises it
                result = (False, error)
        except BaseException as late:   # (Ctrl-C passed on just as the script ended)
            result = (False, late)
        outcome.append(result)
        while True:   # an exception raised here just as it ended lands once: do it again
            try:
                with lock:
                    state["running"] = False
                _script_threads.discard(threading.get_ident())
                finished.set()
                return
            except BaseException:
                continue

    previous = threading.stack_size()
    pending: type[BaseException] | None = None
    try:
        threading.stack_size(STACK_BYTES)
        worker = threading.Thread(target=target, name="gradcli-script", daemon=True)
        worker.start()
    except BaseException as error:   # (Ctrl-C while the thread was starting)
        if not began.wait(5):
            raise
        pending = type(error)
    finally:
        threading.stack_size(previous)
    while not finished.is_set():
        if pending is not None:
            with lock:
                if state["running"]:
                    _raise_in(worker, pending)
            pending = None
        try:
            finished.wait()
        except BaseException as error:   # Ctrl-C or the time limit, raised here by its signal
            pending = type(error)
    worker.join()
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def _raise_in(worker: threading.Thread, kind: type[BaseException]) -> None:
    """Raise ``kind`` in ``worker`` at its next bytecode."""
    import ctypes
    ident = worker.ident
    if ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(kind))
