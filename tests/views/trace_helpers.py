"""Running a script with the backward trace on, in-process, for the trace view's tests."""

from __future__ import annotations

import io
import re
from pathlib import Path

from gradcli.engine import api
from gradcli.lang import Session
from gradcli.views.trace import TraceView

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "trace_golden"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ADDRESS = re.compile(r"0x[0-9a-f]+")


def run(text: str, filename: str = "<test>", *, trace: bool = True, together: bool = False,
        color: bool = False, seed: int = 12345) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) of ``text`` run as ``gradcli run [--trace-backward]`` runs it;
    with ``together`` both go to one stream (returned as stdout) to show their order; with
    ``color`` the trace is coloured as the environment asks (FORCE_COLOR: the streams are strings)."""
    api.reset_global_state(seed=seed)
    out = io.StringIO()
    err = out if together else io.StringIO()
    session = Session(stdout=out, stderr=err)
    view = TraceView(no_color=not color) if trace else None
    if view is not None:
        view.before(session)
    outcome = session.run_source(text, filename)
    code = outcome.exit_code if view is None else view.after(session, outcome, outcome.exit_code)
    return out.getvalue(), ("" if together else err.getvalue()), code


def run_file(path: Path, **options) -> tuple[str, str, int]:
    return run(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), **options)


def masked(text: str) -> str:
    return ADDRESS.sub("0x?", text)
