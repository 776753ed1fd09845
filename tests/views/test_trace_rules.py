"""The rules in words: the trace prints each node's rules, and names a chain factor by the rule
that gives it (``d/dself = grad * other``: the factor is ``other``) when the saved value agrees.

Most tests here read a fixed table of rules (trace_helpers.RULES) so that they check how the
trace uses a rule, whatever words the op records carry; the last ones check that the rules are
read from the records and nodes."""

from __future__ import annotations

import pytest

from trace_helpers import ROOT, run, run_file, table_rules  # noqa: F401 (table_rules: the fixture)

from gradcli.engine import api
from gradcli.engine.ops import arithmetic
from gradcli.views.trace import describe


@pytest.mark.usefixtures("table_rules")
def test_the_tutorial_chain_names_its_factors() -> None:
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


@pytest.mark.usefixtures("table_rules")
def test_a_factor_is_named_only_when_the_saved_value_agrees() -> None:
    err = run("import torch\n"
              "x = torch.tensor([0.5, 1.5], requires_grad=True)\n"
              "c = torch.tensor(4.0)\n"
              "y = (x / 3 + x * c).exp()\n"
              "y.sum().backward()\n")[1]
    # x * c: the factor is c (a named constant); x / 3: 1/3; exp has no rule in the table: a number
    assert "      x * c (line 4)" in err and "∂(x * c)/∂x" in err and "= c = 4\n" in err
    assert "= 1/3 = 0.333333\n" in err
    assert "= 8.72914\n" in err
    assert "    x.grad[0] = 34.9166 + 2.90971 = 37.8263    where c = 4\n" in err


def test_a_rule_that_is_not_a_plain_product_leaves_the_number(monkeypatch) -> None:
    monkeypatch.setattr(describe, "edge_rule", lambda node, index: "grad * other, or something else")
    monkeypatch.setattr(describe, "rule_lines", lambda node: [])
    err = run("import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x * 5).sum().backward()\n")[1]
    assert "∂(x * 5)/∂x" in err and "    x.grad[0] = 1 · 5 = 5\n" in err


def test_the_rules_come_from_the_op_records(monkeypatch) -> None:
    monkeypatch.setattr(arithmetic.MUL.derivs["self"], "rule", "grad * other")
    x = api.TORCH["ones"](2, requires_grad=True)
    node = (x * 3).grad_fn
    assert describe.edge_rule(node, 0) == "grad * other"
    assert describe.edge_rule(node, 1) == ""          # 3 needs no gradient: no formula runs
    assert "d/dself = grad * other" in describe.rule_lines(node)


def test_a_nodes_own_rule_lines_are_used_when_it_has_them() -> None:
    class Node:
        next_functions = ()

        def rule_lines(self) -> list[str]:
            return ["adds grad into .grad of the leaf", ""]
    assert describe.rule_lines(Node()) == ["adds grad into .grad of the leaf"]
