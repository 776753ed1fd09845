"""Colour on a terminal, plain text on a pipe: the colours change no character."""

from __future__ import annotations

import io

from trace_helpers import ANSI, ROOT, run_file

from gradcli.views.trace.output import TraceOutput


def test_force_color_colours_the_trace_and_changes_no_character(monkeypatch) -> None:
    path = ROOT / "samples" / "autograd_tutorial.ag"
    plain = run_file(path)[1]
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    colored = run_file(path, color=True)[1]
    assert "\x1b[" in colored
    assert "\x1b[1;36mMulBackward0\x1b[0m" in colored        # node names bold cyan
    assert ANSI.sub("", colored) == plain


def test_no_color_wins(monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run_file(ROOT / "samples" / "autograd_tutorial.ag", color=True)[1]


def test_the_scripts_stdout_is_flushed_before_each_write() -> None:
    order: list[str] = []
    stream = io.StringIO()
    output = TraceOutput(stream, color=False, before_write=lambda: order.append("flush"))
    output.write([[("a line", None)]])
    output.write([])
    assert order == ["flush"] and stream.getvalue() == "a line\n"
