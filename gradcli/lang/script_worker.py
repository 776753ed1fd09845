"""A run in a worker thread, so that the time limit and Ctrl-C stop it at once.

NumPy lets go of the interpreter during a long call (a large matmul, an exp over 10**8
elements), but a signal handler runs only in the main thread, between bytecodes: with the
script in the main thread, ``--timeout`` and Ctrl-C would wait for the call to end.  So the
main thread only waits (a wait that the time limit ends and Ctrl-C interrupts) while a worker
thread runs the script.  When the wait ends early, the worker is told (``tell``: the exception
is raised there at its next bytecode) and, in Python code, it reports where it was and ends as
a run in the main thread would.  If it does not end at once (it is inside a long NumPy call),
the session reports where it is and leaves it behind (runtime.Session._stopped): ``gradcli
run`` and ``eval`` exit at once; the REPL returns to its prompt, and before its next entry
waits for the abandoned worker to end and puts back the variables as they were at Ctrl-C (so
an abandoned statement cannot change them later).

One small module on purpose: the worker thread is also where a larger stack for deep
recursion can be given (``stack_size``), so both needs are met by one thread.

A C call that holds the interpreter throughout (a huge ``sorted`` or a big-integer product)
cannot be stopped by any thread: gradcli.lang.sizes refuses the large ones before they start,
the memory ceiling (``cap_memory``) ends those that grow too big, and for ``run``/``eval``
``hard_stop`` arms faulthandler's watchdog, which ends the process a second after the time
limit whatever it is doing.
"""

from __future__ import annotations

import _thread
import sys
import time
from typing import Any, Callable

from gradcli.lang.deadline import set_deadline

# The time limit of a script run (gradcli run, eval and the views that run a file) when
# --timeout is not given; the REPL has none (Ctrl-C rules there).
DEFAULT_TIMEOUT = 60.0


_SLICE = 0.25   # seconds
_OWN_STOP_GRACE = 0.05   # seconds


class Stopped(Exception):
    """The wait ended early: ``reason`` is "timeout" or "interrupt"; ``frame`` is the worker's
    innermost frame at that moment (where the script was)."""

    def __init__(self, reason: str, frame: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.frame = frame


class Worker:
    """One run of ``work()`` in its own thread; ``run`` starts it and gives its result, or raises
    Stopped.  (Built on ``_thread``: the threading module costs a plain run half a millisecond
    to import.)"""

    def __init__(self, work: Callable[[], Any], stack_size: int = 0) -> None:
        self.work = work
        self.stack_size = stack_size
        self.result: Any = None
        self.error: BaseException | None = None
        self.ident: int | None = None
        self.finished = False
        self._lock = _thread.allocate_lock()   # held until the work is finished
        self._lock.acquire()

    def _main(self, context: Any) -> None:
        try:
            try:
                self.result = context.run(self.work)
            except BaseException as error:  # (re-raised in the waiting thread)
                self.error = error
            finally:
                self.finished = True
                self._lock.release()
        except BaseException:   # the one told exception, come just as the work ended: finish anyway
            self.finished = True
            if self._lock.locked():
                self._lock.release()

    def run(self, deadline: float | None, memory_ceiling: int | None = None) -> Any:
        """Start the work and wait for it: its result (or its exception, raised here); Stopped
        at the deadline (a time.monotonic() value) or at Ctrl-C, even one that comes while the
        thread starts.  ``memory_ceiling``: the most data memory the process may map meanwhile
        (see cap_memory)."""
        # NumPy's error state and decimal's context are the starting thread's: the worker runs
        # in a copy of its context, so that np.seterr/np.errstate hold there too
        import contextvars
        context = contextvars.copy_context()
        restore = None
        previous_deadline = set_deadline(deadline)   # (the worker's loops check it themselves)
        try:
            # (before the thread starts: a C loop holding the interpreter would not let this thread
            # set it later; the stack the thread maps is counted, with room above what is in use)
            if memory_ceiling is not None:
                restore = cap_memory(max(memory_ceiling, data_memory() + (self.stack_size or 8 << 20) * 2))
            self.ident = _start(self._main, (context,), self.stack_size)
            while True:
                # (a loop stops itself at the deadline: a little later, so as not to tell it
                # while it reports that; anything else is told then)
                remaining = None if deadline is None else deadline + _OWN_STOP_GRACE - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise Stopped("timeout", self.frame())
                # Ctrl-C interrupts the wait itself; waking now and then also notices one that
                # the system handed to another thread (the handler runs in this one)
                if self.finish(_SLICE if remaining is None else min(remaining, _SLICE)):
                    break
        except KeyboardInterrupt:
            if not self.finished:   # (else it ended in the meantime: Ctrl-C came too late)
                raise Stopped("interrupt", self.frame()) from None
        finally:
            set_deadline(previous_deadline)
            if restore is not None:
                restore()
        return self.outcome()

    def outcome(self) -> Any:
        """The finished work's result, or its exception raised here."""
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        return self.result

    def frame(self) -> Any:
        """The worker's innermost frame now (None once it has ended)."""
        return sys._current_frames().get(self.ident) if self.ident is not None else None

    def tell(self, kind: type[BaseException]) -> None:
        """Raise ``kind`` in the worker at its next bytecode (once its C call returns): Ctrl-C's
        KeyboardInterrupt, the time limit's ScriptTimeout."""
        if not self.finished and self.ident is not None:
            _raise_in(self.ident, kind)

    def finish(self, timeout: float | None = None) -> bool:
        """Wait for the worker to end (Ctrl-C interrupts the wait); whether it did."""
        if self.ident is None or self.finished:   # (not started: Ctrl-C came before it)
            return True
        if self._lock.acquire(True, -1 if timeout is None else timeout):
            self._lock.release()
        return self.finished


def _start(target: Callable[..., None], args: tuple, stack_size: int) -> int:
    if not stack_size:
        return _thread.start_new_thread(target, args)
    previous = _thread.stack_size(stack_size)
    try:
        return _thread.start_new_thread(target, args)
    finally:
        _thread.stack_size(previous)


def _raise_in(ident: int, kind: type) -> None:
    import ctypes  # (here: only an abandoned run needs it)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(kind))


# What the process may map beyond its memory at start, for the interpreter's own needs while a
# run is at its budget (and for BLAS's buffers): the budget is the script's, this is gradcli's.
CEILING_SLACK = 96 << 20


def data_memory() -> int:
    """The process's data memory now (Linux's VmData: what RLIMIT_DATA counts), 0 if unknown."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cap_memory(ceiling: int | None) -> Callable[[], None] | None:
    """Let the process map no more than ``ceiling`` bytes of data (RLIMIT_DATA) until the returned
    function is called: a backstop under the budget's own checks, for what no check foresees (a
    huge list built by a C loop).  Past it an allocation fails with MemoryError instead of taking
    the machine's memory.  None where the system has no such limit."""
    if ceiling is None:
        return None
    try:
        import resource
        previous = resource.getrlimit(resource.RLIMIT_DATA)
        hard = previous[1]
        soft = ceiling if hard == resource.RLIM_INFINITY else min(ceiling, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_DATA, previous)


_hard_stop_armed = False


def hard_stop(seconds: float | None) -> None:
    """End the process ``seconds`` from now, whatever it is doing (None: disarm).  For
    ``run``/``eval`` only: a second after the time limit, when the main thread could not report
    it because a C call held the interpreter all along.  Exit status 1, nothing written."""
    global _hard_stop_armed
    import faulthandler
    if seconds is None:
        if _hard_stop_armed:
            faulthandler.cancel_dump_traceback_later()
            _hard_stop_armed = False
        return
    import os
    devnull = open(os.devnull, "w")  # (faulthandler would write the threads' tracebacks)
    faulthandler.dump_traceback_later(seconds, exit=True, file=devnull)
    _hard_stop_armed = True
