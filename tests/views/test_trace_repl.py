"""``:trace on`` / ``:trace off`` in the REPL: the trace on the console's stderr, with the names the
REPL's provenance knows; the REPL's stdout keeps only what the entries print."""

from __future__ import annotations

import io

import pytest

from trace_helpers import no_rules  # noqa: F401 (the fixture)

from gradcli.engine.autograd import observe
from gradcli.repl.core import Console

# (the rules' words are the op records' business: tests/views/test_trace_rules.py reads them)
pytestmark = pytest.mark.usefixtures("no_rules")


def console() -> tuple[Console, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Console(stdout=out, stderr=err), out, err


def push(target: Console, *lines: str) -> None:
    for line in lines:
        target.push(line)


def test_trace_on_then_off() -> None:
    repl, out, err = console()
    push(repl, "import torch", "x = torch.tensor([1.0, 2.0], requires_grad=True)", ":trace on",
         "y = (x * x).sum()", "y.backward()")
    assert out.getvalue().startswith("Backward trace on: each backward() and torch.autograd.grad() shows the chain "
                                     "rule step by step, on stderr (:trace off stops it).\n")
    trace = err.getvalue()
    assert "── backward pass 1 · y.backward() · line 1 ────────\n" in trace
    assert "[1] SumBackward0 · y = (x * x).sum() · line 1\n" in trace
    assert "              Σ fan-out into x: [1, 2] (from [2] self) + [1, 2] (from [2] other) = [2, 4]\n" in trace
    assert "    x.grad    None → [2, 4]\n" in trace
    assert "    x.grad[0] = 1 · 2·1 = 1 · 2 = 2\n" in trace
    push(repl, ":trace off", "z = (x * 3).sum()", "z.backward()", "print(x.grad)")
    assert err.getvalue() == trace          # nothing more once off
    assert out.getvalue().endswith("Backward trace off.\ntensor([5., 7.])\n")
    assert observe.tracer is None


def test_trace_survives_reset_and_names_the_new_sessions_tensors() -> None:
    repl, out, err = console()
    push(repl, ":trace on", ":reset", "import torch", "w = torch.ones(2, requires_grad=True)",
         "(w * 2).sum().backward()")
    assert "[2] MulBackward0 · w * 2 · line 1\n" in err.getvalue()
    assert "    w.grad    None → [2, 2]\n" in err.getvalue()
    push(repl, ":trace off")


def test_trace_needs_on_or_off() -> None:
    repl, out, err = console()
    push(repl, ":trace", ":trace maybe", ":trace off")
    assert err.getvalue() == ("gradcli: :trace on|off needs on or off\n"
                              "gradcli: :trace takes on or off, not 'maybe'\n")
    assert out.getvalue() == "The backward trace is off already.\n"


def test_help_lists_trace() -> None:
    repl, out, err = console()
    push(repl, ":help")
    assert "  :trace on|off " in out.getvalue()
