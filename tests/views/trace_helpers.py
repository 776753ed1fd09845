"""Running a script with the backward trace on, in-process, for the trace view's tests."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

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


# The rules in words come from the op records; the tests of how the trace reads and lays out a
# pass use these fixed ones instead (none, or a small table), so that they check the trace and
# not the records' wording (which tests/engine checks).
RULES = {
    ("MulBackward0", "self"): "grad * other",
    ("MulBackward0", "other"): "grad * self",
    ("AddBackward0", "self"): "grad",
    ("AddBackward0", "other"): "grad * alpha",
    ("DivBackward0", "self"): "grad / other (0 with a rounding_mode)",
    ("MeanBackward0", "self"): "grad / numel(self), expanded to self's shape",
}


def _table_rule(node, index: int) -> str:
    from gradcli.views.trace import describe
    names = describe.edge_names(node)
    return RULES.get((type(node).__name__, names[index] if index < len(names) else ""), "")


def _table_lines(node) -> list[str]:
    from gradcli.views.trace import describe
    return [f"d/d{name} = {_table_rule(node, i)}" for i, name in enumerate(describe.edge_names(node))
            if _table_rule(node, i)]


@pytest.fixture
def no_rules(monkeypatch):
    from gradcli.views.trace import describe
    monkeypatch.setattr(describe, "edge_rule", lambda node, index: "")
    monkeypatch.setattr(describe, "rule_lines", lambda node: [])


@pytest.fixture
def table_rules(monkeypatch):
    from gradcli.views.trace import describe
    monkeypatch.setattr(describe, "edge_rule", _table_rule)
    monkeypatch.setattr(describe, "rule_lines", _table_lines)
