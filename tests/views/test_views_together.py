"""Views used side by side in one REPL session stay out of each other's way."""

from __future__ import annotations

import io

from gradcli.repl.core import Console


def test_explain_under_trace_on_does_not_trace_its_own_autograd_calls():
    out, err = io.StringIO(), io.StringIO()
    console = Console(stdout=out, stderr=err)
    for line in ("x = torch.tensor([1.0, 2.0], requires_grad=True)", "y = (x * x).sum()", ":trace on",
                 "y.backward()", ":explain y", "z = (x * 3).sum()", "z.backward()"):
        console.push(line)
    trace = err.getvalue()
    # the script's two backward() calls are traced, explain's own gradient is not
    assert trace.count("── backward pass") == 2
    assert "autograd.grad pass" not in trace
    assert "∂y/∂x = 2·x = [2, 4] at x = [1, 2]  ✓" in out.getvalue()
