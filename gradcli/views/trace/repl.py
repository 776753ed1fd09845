"""The REPL's ``:trace on`` / ``:trace off``: the trace of every backward pass on the console's stderr."""

from __future__ import annotations

from typing import Any

from gradcli.engine.autograd import observe
from gradcli.views.trace.output import TraceOutput
from gradcli.views.trace.recorder import BackwardTrace


def switch(console: Any, argument: str) -> tuple[bool, str]:
    """Turn the trace on or off; (whether it worked, what to tell the user)."""
    word = argument.strip().lower()
    current = getattr(console, "backward_trace", None)
    if word == "on":
        if current is not None:
            return True, "The backward trace is already on (:trace off stops it)."
        console.session  # (built now: its provenance names the nodes)
        output = TraceOutput(console.stderr, console.diagnostics_color, before_write=console.stdout.flush)
        tracer = BackwardTrace(output, lambda: console.provenance)
        observe.add_tracer(tracer)
        console.backward_trace = tracer
        return True, ("Backward trace on: each backward() and torch.autograd.grad() shows the chain rule "
                      "step by step, on stderr (:trace off stops it).")
    if word == "off":
        if current is None:
            return True, "The backward trace is off already."
        observe.remove_tracer(current)
        console.backward_trace = None
        return True, "Backward trace off."
    return False, f":trace takes on or off, not '{argument}'"
