"""Whose mistake an exception is: the script's (reported, and catchable by its ``except``) or
gradcli's (a bug: reported as an internal error, never handed to the script).

An exception is the script's when it is a ``Script*`` or ``Torch*`` error (raised on purpose),
a RecursionError, or when Python raised it while evaluating one of the script's own operations
(``"a" + 1``, ``[1][5]``, ``int("x")``, ``raise ValueError(...)``): the innermost frame of its
traceback, not counting the libraries a script calls directly (NumPy, and the pure-Python parts of
the standard-library subsets: ``random.randint(5, 1)`` fails inside random.py), is one of the
files that hold the closures a script runs as.
"""

from __future__ import annotations

import os

from gradcli.lang.errors import ScriptError, ScriptTimeout

_script_files: frozenset[str] | None = None
_library_prefixes: tuple[str, ...] = ()
_verdicts: dict[str, str] = {}    # co_filename -> "library" | "script" | "other"


def _load() -> frozenset[str]:
    """The files whose frames are the script's operations, and the libraries to look through."""
    global _script_files, _library_prefixes
    import string

    import numpy

    from gradcli.lang import builtins, class_access, classes, functions, safety, shorthand, sizes, stdlib
    from gradcli.lang.compiler import CLOSURE_MODULES, FUSED_FILES
    modules = (*CLOSURE_MODULES, functions, builtins, safety, shorthand, classes, class_access, stdlib, sizes)
    _script_files = frozenset(os.path.abspath(module.__file__) for module in modules) | {
        os.path.abspath(string.__file__), *FUSED_FILES}
    library = os.path.dirname(os.path.abspath(os.__file__))
    _library_prefixes = (os.path.dirname(os.path.abspath(numpy.__file__)) + os.sep,
                         *(os.path.join(library, name) for name in stdlib.PYTHON_SOURCES))
    return _script_files


def _verdict(filename: str) -> str:
    found = _verdicts.get(filename)
    if found is None:
        path = os.path.abspath(filename)
        if path.startswith(_library_prefixes):
            found = "library"
        else:
            found = "script" if path in (_script_files or _load()) else "other"
        _verdicts[filename] = found
    return found


def is_script_error(error: BaseException) -> bool:
    """A mistake in the script (reported as Python would) rather than a bug in gradcli."""
    if isinstance(error, (ScriptError, RecursionError)):
        return True
    try:
        from gradcli.engine.errors import TorchError
    except ImportError:  # pragma: no cover - the engine package always ships errors.py
        TorchError = ()  # type: ignore[assignment]
    if isinstance(error, TorchError):
        return True
    if _script_files is None:
        _load()
    trace = error.__traceback__
    innermost = "other"  # of the innermost frame outside the libraries
    while trace is not None:
        verdict = _verdict(trace.tb_frame.f_code.co_filename)
        if verdict != "library":
            innermost = verdict
        trace = trace.tb_next
    return innermost == "script"


def is_catchable(error: BaseException) -> bool:
    """Whether a script's ``except`` may handle ``error``: its own errors, never gradcli's bugs,
    the time limit or Ctrl-C (which stop the run)."""
    if isinstance(error, (KeyboardInterrupt, ScriptTimeout)):
        return False
    return is_script_error(error)
