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

NEURON = """\
How loss was computed (the script's names; unnamed steps folded in):
  loss = (r - target)²                               line 13: (r - target) ** 2
  r = h·[h > 0]                                      line 12: F.relu(h)
  h = b + w @ x                                      line 11: w @ x + b
  x: [1, -2, 0.5] (a constant, shape [3], float32)   line 7
  target: 2 (a constant, scalar, float32)            line 10
  w: a leaf (shape [3], float32, requires_grad)      line 8
  b: a leaf (scalar, float32, requires_grad)         line 9
SymPy's derivative, checked against autograd (w.grad, b.grad, left by the script's loss.backward() at line 14):
  ∂loss/∂w = 2·x·(r - target)·[h > 0] = [-1, 2, -0.5] at h = 1.5, r = 1.5, target = 2, x = [1, -2, 0.5]  ✓
  ∂loss/∂b = 2·(r - target)·[h > 0] = -1 at h = 1.5, r = 1.5, target = 2  ✓
"""


def test_the_tutorial_out_by_x():
    result = gradcli("explain", str(TUTORIAL), "out", "--wrt", "x")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == TUTORIAL_OUT
    # the script's own output is not shown: explain writes the explanation only
    assert "tensor(" not in result.stdout


def test_without_wrt_every_leaf_of_out_is_taken():
    assert gradcli("explain", str(TUTORIAL), "out").stdout == TUTORIAL_OUT


@pytest.mark.parametrize(("sample", "name", "expected"), [("explain_sin", "loss", SIN_LOSS),
                                                           ("explain_sin", "pred", SIN_PRED),
                                                           ("explain_neuron", "loss", NEURON)])
def test_the_explain_samples(sample, name, expected):
    result = gradcli("explain", f"samples/{sample}.ag", name)
    assert (result.returncode, result.stderr, result.stdout) == (0, "", expected)


def _torch_leaf_grads(script: str, name: str) -> list:
    """Run ``script`` with real PyTorch; the .grad of each leaf behind ``name``, found by walking its
    graph (the tutorial rebinds x later: the graph still holds the x ``name`` read)."""
    pytest.importorskip("torch")
    namespace: dict = {}
    with redirect_stdout(io.StringIO()):
        exec(compile(script, "script", "exec"), namespace)
    grads, seen, todo = [], set(), [namespace[name].grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "variable"):
            grads.append(node.variable.grad.numpy().astype(float))
        todo.extend(child for child, _ in node.next_functions)
    return grads


def _shown(line: str) -> np.ndarray:
    """The numbers after the formula's '=' on an explain line: '= [-1, 2, -0.5] at' or '= -1 at'."""
    text = re.search(r" = (\[[^=]*?\]|-?[0-9.]+)(?: at |  ✓)", line).group(1)
    return np.array([float(v) for v in text.strip("[]").split(", ")])


def test_the_numbers_are_pytorchs():
    want, = _torch_leaf_grads(TUTORIAL.read_text(), "out")
    assert np.all(want == 4.5) and _shown(TUTORIAL_OUT.splitlines()[-1]).tolist() == [4.5]
    want, = _torch_leaf_grads((ROOT / "samples" / "explain_sin.ag").read_text(), "loss")
    np.testing.assert_allclose(_shown(SIN_LOSS.splitlines()[-1]), want, rtol=1e-5)
    grads = _torch_leaf_grads((ROOT / "samples" / "explain_neuron.ag").read_text(), "loss")
    by_shape = {g.shape: g for g in grads}
    np.testing.assert_allclose(_shown(NEURON.splitlines()[-2]), by_shape[(3,)], rtol=1e-6)
    np.testing.assert_allclose(_shown(NEURON.splitlines()[-1]), by_shape[()].reshape(1), rtol=1e-6)
