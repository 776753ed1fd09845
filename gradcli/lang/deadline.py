"""The time limit as the running script itself checks it, once per loop iteration.

The waiting thread (script_worker.Worker.run) tells the worker when the limit has passed, but
it needs the interpreter to wake and tell: a script whose loop lets go of the interpreter and
takes it back many times a millisecond (backward, then an in-place step under no_grad) can keep
the waiting thread from it for half a second or more, and the run ends that much late.  Every
loop, plain and fused, asks ``check()`` after each iteration, so such a run ends on time by
itself, with the same located TimeoutError.
"""

from __future__ import annotations

from time import monotonic

from gradcli.lang.errors import ScriptTimeout

_deadline = float("inf")   # a time.monotonic() value; infinite while no limited run is going


def set_deadline(deadline: float | None) -> float | None:
    """Check against ``deadline`` from now on (None: no limit); gives the one it replaces, to
    be set back afterwards."""
    global _deadline
    previous, _deadline = _deadline, float("inf") if deadline is None else deadline
    return None if previous == float("inf") else previous


def check() -> None:
    """Raise ScriptTimeout once the limit of the running script has passed."""
    if monotonic() > _deadline:
        raise ScriptTimeout
