"""The rules in words: the trace prints each node's rules, and names a chain factor by the rule
that gives it (``d/dself = grad * other``: the factor is ``other``) when the saved value agrees.

The rules here are set on the op records for the test, so that what is checked is how the trace
reads them, whatever words the records carry."""

from __future__ import annotations

import pytest

from trace_helpers import ROOT, run_file, run

from gradcli.engine.ops import arithmetic, reductions


@pytest.fixture
def rules(monkeypatch):
    for deriv, rule in ((arithmetic.MUL.derivs["self"], "grad * other"),
                        (arithmetic.MUL.derivs["other"], "grad * self"),
                        (arithmetic.ADD.derivs["self"], "grad"),
                        (arithmetic.ADD.derivs["other"], "grad * alpha"),
                        (arithmetic.DIV.derivs["self"], "grad / other (0 with a rounding_mode)"),
                        (reductions.MEAN.derivs["self"], "grad / numel(self), expanded to self's shape")):
        monkeypatch.setattr(deriv, "rule", rule)


def test_the_tutorial_chain_names_its_factors(rules) -> None:
    err = run_file(ROOT / "samples" / "autograd_tutorial.ag")[1]
    first = err.split("── backward pass 2")[0]
    assert """\
[3] MulBackward0 · y * y · line 15
    grad in   [[0.75, 0.75], [0.75, 0.75]]
    rule      d/dself = grad * other
              d/dother = grad * self
""" in first
    assert "    rule      d/dself = grad / numel(self), expanded to self's shape\n" in first
    assert """\
      out = z.mean() (line 16)  ∂out/∂z     = 1/4 = 0.25
      z = y * y * 3 (line 15)   ∂z/∂(y * y) = 3
      y * y (line 15)           ∂(y * y)/∂y = 2·y = 6  (the same tensor is self and other: 3 + 3)
      y = x + 2 (line 10)       ∂y/∂x       = 1
    x.grad[0, 0] = (1/4) · 3 · 2·y · 1 = 0.25 · 3 · 6 · 1 = 4.5    where y[0, 0] = 3
""" in first


def test_a_factor_is_named_only_when_the_saved_value_agrees(rules) -> None:
    err = run("import torch\n"
              "x = torch.tensor([0.5, 1.5], requires_grad=True)\n"
              "c = torch.tensor(4.0)\n"
              "y = (x / 3 + x * c).exp()\n"
              "y.sum().backward()\n")[1]
    # x * c: the factor is c (a named constant); x / 3: 1/3; exp has no rule here: a number
    assert "      x * c (line 4)" in err and "∂(x * c)/∂x" in err and "= c = 4\n" in err
    assert "= 1/3 = 0.333333\n" in err
    assert "where c = 4" in err


def test_a_rule_that_is_not_a_product_leaves_the_number(rules, monkeypatch) -> None:
    monkeypatch.setattr(arithmetic.MUL.derivs["self"], "rule", "grad * other, or something else")
    err = run("import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x * 5).sum().backward()\n")[1]
    assert "    rule      d/dself = grad * other, or something else\n" in err
    assert "    x.grad[0] = 1 · 5 = 5\n" in err
