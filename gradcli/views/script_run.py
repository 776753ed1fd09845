"""Run a script for a view (``gradcli graph``, ``explain``, ``report``): with provenance on,
its printed output kept, its errors reported on stderr as ``gradcli run`` reports them."""

from __future__ import annotations

import gc
import io
import sys
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from gradcli.views.provenance import Provenance


class KeptStream(io.TextIOBase):
    """Keeps what the script prints, and passes it on to ``echo`` when given."""

    def __init__(self, echo: TextIO | None) -> None:
        self.kept = io.StringIO()
        self.echo = echo

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.kept.write(text)
        if self.echo is not None:
            self.echo.write(text)
        return len(text)

    def flush(self) -> None:
        if self.echo is not None:
            self.echo.flush()

    def isatty(self) -> bool:
        return False


@dataclass
class ViewRun:
    """A finished run of a script, for a view to look at."""
    session: Any            # gradcli.lang.runtime.Session (its .globals are the script's variables)
    outcome: Any            # gradcli.lang.runtime.Outcome
    provenance: Provenance
    text: str
    filename: str
    printed: str            # everything the script printed on stdout

    @property
    def ok(self) -> bool:
        return self.outcome.ok


def run_for_view(text: str, filename: str, *, show_output: bool = False, no_color: bool = False,
                 debug: bool = False, no_hints: bool = False, timeout: float | None = None,
                 max_elements: int | None = None, max_memory: int | None = None, seed: int | None = None,
                 plot_dir: str | None = None, stderr: TextIO | None = None,
                 prepare: Callable[[Any, Provenance], None] | None = None) -> ViewRun:
    """Run ``text`` with provenance on.  Its stdout is kept (and shown with ``show_output``);
    an error is reported on ``stderr`` and the run still returns, so that a view can show the
    graph as far as the script got.  ``prepare(session, provenance)``, when given, runs just
    before the script (a view installing a tracer or a diagnostics listener)."""
    from gradcli.lang.output import wants_color
    from gradcli.lang.runtime import Session
    from gradcli.lang.script_worker import DEFAULT_TIMEOUT

    stderr = stderr or sys.stderr
    printed = KeptStream(sys.stdout if show_output else None)
    session = Session(stdout=printed, stderr=stderr, color=False,
                      diagnostics_color=wants_color(stderr, no_color), hints=not no_hints, debug=debug,
                      timeout=DEFAULT_TIMEOUT if timeout is None else timeout or None, plot_dir=plot_dir)
    if max_elements is not None:
        session.engine.set_max_elements(max_elements)
    if max_memory is not None:
        session.engine.set_max_memory(max_memory or None)
    if seed is not None:
        session.engine.TORCH["manual_seed"](seed)
    provenance = Provenance().start(session.context)
    # Provenance makes a few small objects per node while the graph only grows: with the
    # collector's default threshold its passes over that graph cost more than the record itself.
    thresholds = gc.get_threshold()
    gc.set_threshold(20000, *thresholds[1:])
    try:
        if prepare is not None:
            prepare(session, provenance)
        outcome = session.run_source(text, filename)
    finally:
        gc.set_threshold(*thresholds)
        provenance.stop()
    return ViewRun(session, outcome, provenance, text, filename, printed.kept.getvalue())
