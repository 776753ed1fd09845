"""Run a script on a thread of its own, whose C stack is large enough for the recursion it may do.

The main thread's stack is the process's (often 8 MB): C code that recurses (a chain of
generators, ``sorted`` with a key calling itself, a user class's ``__eq__`` called by ``==``)
takes up to about 5 KB of it per level, so the interpreter's recursion limit that a script needs
(runtime.INTERPRETER_RECURSION_LIMIT) would overflow it and end the process with SIGSEGV.  The
script thread's stack is sized from that limit (tests/lang/test_depth.py measures the worst
levels).  Its pages are only reserved: memory is used as deep as the script goes.

The thread is script_worker's (which also keeps the time limit and Ctrl-C); this module says
how big its stack is and whether a thread is one already.
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


def marked(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` with this thread counted as a script thread while it runs (the
    script worker runs the session's work through it)."""
    ident = threading.get_ident()
    _script_threads.add(ident)
    try:
        return function(*args)
    finally:
        _script_threads.discard(ident)
