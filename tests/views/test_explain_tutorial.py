"""``gradcli explain`` on the seed tutorial and the explain sample: the whole output, and its numbers
against real PyTorch's gradient."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pytest

from explain_helpers import ROOT, TUTORIAL, gradcli

TUTORIAL_OUT = """\
How out was computed (the script's names; unnamed steps folded in):
  out = mean(z)                                      line 16: z.mean()
  z = 3·y²                                           line 15: y * y * 3
  y = x + 2                                          line 10: x + 2
  x: a leaf (shape [2, 2], float32, requires_grad)   line 8
SymPy's derivative, checked against autograd (x.grad, left by the script's out.backward() at line 28):
  ∂out/∂x = 3·(x + 2)/2 = 4.5 at x = 1  ✓
"""

SIN_LOSS = """\
How loss was computed (the script's names; unnamed steps folded in):
  loss = mean((pred - 1)²)                        line 8: ((pred - 1) ** 2).mean()
  pred = sin(w·x)                                 line 7: torch.sin(w * x)
  x: [2, 3] (a constant, shape [2], float32)      line 6
  w: a leaf (shape [2], float32, requires_grad)   line 5
SymPy's derivative, checked against autograd (w.grad, left by the script's loss.backward() at line 9):
  ∂loss/∂w = x·(sin(w·x) - 1)·cos(w·x) = [-0.171307, 3.3891] at w = [0.5, -1], x = [2, 3]  ✓
"""

SIN_PRED = """\
How pred was computed (the script's names; unnamed steps folded in):
  pred = sin(w·x)                                 line 7: torch.sin(w * x)
  x: [2, 3] (a constant, shape [2], float32)      line 6
  w: a leaf (shape [2], float32, requires_grad)   line 5
SymPy's derivative, checked against autograd (torch.autograd.grad on the same ops recorded again, as the script's backward() freed its graph):
  pred has 2 elements: the derivatives are the entries ∂pred[o]/∂leaf[i] of its Jacobian
  element by element (the Jacobian is diagonal: ∂pred[i]/∂w[i], 0 elsewhere):
  ∂pred/∂w = x·cos(w·x) = [1.0806, -2.96998] at w = [0.5, -1], x = [2, 3]  ✓
"""


def test_the_tutorial_out_by_x():
    result = gradcli("explain", str(TUTORIAL), "out", "--wrt", "x")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == TUTORIAL_OUT
    # the script's own output is not shown: explain writes the explanation only
    assert "tensor(" not in result.stdout


def test_without_wrt_every_leaf_of_out_is_taken():
    assert gradcli("explain", str(TUTORIAL), "out").stdout == TUTORIAL_OUT


@pytest.mark.parametrize(("name", "expected"), [("loss", SIN_LOSS), ("pred", SIN_PRED)])
def test_the_explain_sample(name, expected):
    result = gradcli("explain", "samples/explain_sin.ag", name)
    assert (result.returncode, result.stderr, result.stdout) == (0, "", expected)


def _torch_leaf_grad(script: str, name: str):
    """Run ``script`` with real PyTorch; the .grad of the leaf behind ``name`` (the first leaf found
    walking its graph: the script rebinds x later, the graph still holds the x ``name`` read)."""
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    with redirect_stdout(io.StringIO()):
        exec(compile(script, "script", "exec"), namespace)
    node = namespace[name].grad_fn
    seen = [node]
    while seen:
        node = seen.pop()
        if hasattr(node, "variable"):
            return node.variable.grad.numpy().astype(float)
        seen.extend(child for child, _ in node.next_functions if child is not None)
    assert torch is not None
    raise AssertionError("no leaf")


def test_the_numbers_are_pytorchs():
    want = _torch_leaf_grad(TUTORIAL.read_text(), "out")
    assert np.all(want == 4.5)
    line = TUTORIAL_OUT.splitlines()[-1]
    assert re.search(r"= 4\.5 at x = 1  ✓$", line)
    sin = (ROOT / "samples" / "explain_sin.ag").read_text()
    want = _torch_leaf_grad(sin, "loss")
    shown = re.search(r"= \[(.*?)\] at", SIN_LOSS.splitlines()[-1]).group(1)
    np.testing.assert_allclose([float(v) for v in shown.split(", ")], want, rtol=1e-5)
