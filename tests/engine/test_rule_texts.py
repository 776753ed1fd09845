"""Every gradient formula of the op table has its rule in words, and every kind of node answers
``rule_lines()`` (what the trace and graph views show as the local chain-rule step)."""

from __future__ import annotations

import pytest

from gradcli.engine import api
from gradcli.engine.autograd.backward import grad
from gradcli.engine.autograd.node import Node
from gradcli.engine.dispatch.publish import OPS

T = api.TORCH
tensor = T["tensor"]


def leaf(values):
    return tensor(values, requires_grad=True)


def _every_deriv():
    """(op name, input, Deriv) for every formula of every published op record."""
    return [(op.name, name, deriv) for op in OPS.values() for name, deriv in op.derivs.items()]


def test_the_op_table_is_all_there():
    # OPS is filled by install() (run by importing api): an empty table would make the checks
    # below pass vacuously
    assert len(OPS) > 150 and len(_every_deriv()) > 250


@pytest.mark.parametrize("op_name, name, deriv", _every_deriv(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_formula_has_its_rule(op_name, name, deriv):
    rules = [deriv.rule, *deriv.node_rules.values()]
    for rule in rules:
        assert rule.strip(), f"{op_name}: d/d{name} has no rule in words"
        assert "\n" not in rule and len(rule) <= 110, f"{op_name}: d/d{name}'s rule is not one short line"


def test_exact_rules_of_some_ops():
    assert OPS["mul"].derivs["self"].rule == "grad * other"
    assert OPS["mul"].derivs["other"].rule == "grad * self"
    assert OPS["add"].derivs["other"].rule == "grad * alpha"
    assert OPS["pow"].derivs["self"].rule == "grad * exponent * self^(exponent - 1)"
    assert OPS["mean"].derivs["self"].rule_for("MeanBackward0") == "grad / numel(self), expanded to self's shape"
    assert OPS["sum"].derivs["self"].rule == "grad expanded to self's shape"
    assert OPS["mm"].derivs["self"].rule == "grad @ mat2^T"


def test_a_real_graph_reads_its_rules_from_the_record():
    x = leaf([1.0, 2.0])
    y = x * x
    assert y.grad_fn.rule_lines() == ["d/dself = grad * other", "d/dother = grad * self"]
    out = (y * 3 + 2).mean()
    assert out.grad_fn.rule_lines() == ["d/dself = grad / numel(self), expanded to self's shape"]
    assert (x ** 2).grad_fn.rule_lines() == ["d/dself = grad * exponent * self^(exponent - 1)"]


def test_inputs_without_grad_are_left_out_and_a_list_input_is_one_line():
    x, c = leaf([1.0, 2.0]), tensor([3.0, 4.0])
    assert (x * c).grad_fn.rule_lines() == ["d/dself = grad * other"]
    assert (c * x).grad_fn.rule_lines() == ["d/dother = grad * self"]
    lines = T["cat"]([x, c, x]).grad_fn.rule_lines()
    assert lines == ["d/dtensors[i] = grad narrowed along dim to where tensors[i] was placed"]


def test_one_op_words_each_overload_by_its_node():
    x, w = leaf([1.0, 5.0]), leaf([4.0, 2.0])
    assert T["max"](x).grad_fn.rule_lines() == ["d/dself = grad shared evenly by the elements equal to the max"]
    assert T["max"](x, 0)[0].grad_fn.rule_lines() == [
        "d/dself = zeros of self's shape, grad at the max's index along dim"]
    assert T["max"](x, w).grad_fn.rule_lines()[0] == (
        "d/dself = where(self < other, 0, grad), grad / 2 where self == other")
    assert (2 % x).grad_fn.rule_lines() == ["d/dother = not implemented: backward raises an error"]


class _Square(api.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g


class _OnceSquare(api.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    @api.once_differentiable
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g


def _one_node_of_each_kind() -> list:
    x = leaf([1.0, 2.0])
    nodes = [(x * 2).grad_fn, (x * 2).grad_fn.next_functions[0][0]]   # an op node, AccumulateGrad
    base = x * 1
    view = base[0:1]
    view.mul_(3)                      # the base's node becomes CopySlices
    nodes.append(base.grad_fn)
    other = x * 1
    seen = other[0:1]
    other.add_(1)                     # the view's history is rebuilt: AsStridedBackward0
    nodes.append(seen.grad_fn)
    nodes.append(_Square.apply(x).grad_fn)  # a custom Function's node
    # once_differentiable's Error node: its backward ran on a gradient that requires grad
    (g,) = grad(_OnceSquare.apply(x), x, grad_outputs=leaf([1.0, 1.0]), create_graph=True)
    nodes.append(g.grad_fn)
    z = leaf([1.0, 2.0])
    (z * z).sum().backward(create_graph=True)  # (PyTorch's warning about it goes to stderr)
    nodes.append(z.grad.grad_fn)       # record_identity's CopyBackwards
    return nodes


def test_every_kind_of_node_answers_rule_lines():
    nodes = _one_node_of_each_kind()
    names = [type(n).__name__ for n in nodes]
    assert names == ["MulBackward0", "AccumulateGrad", "CopySlices", "AsStridedBackward0", "_SquareBackward",
                     "Error", "CopyBackwards"]
    # every class the engine derives from Node directly is among them (a new kind of node needs
    # its rule in words, and a case here)
    kinds = set(Node.__subclasses__())
    covered = {k for n in nodes for k in type(n).__mro__ if k in kinds}
    assert covered == kinds
    for node in nodes:
        lines = node.rule_lines()
        assert lines and all(line.strip() for line in lines), type(node).__name__


def test_the_hand_written_nodes_say_what_they_do():
    nodes = {type(n).__name__: n for n in _one_node_of_each_kind()}
    assert nodes["AccumulateGrad"].rule_lines() == ["adds grad into .grad of the leaf (.grad = grad when it is None)"]
    assert nodes["CopySlices"].rule_lines() == [
        "grad to the base, the view's part replaced by MulBackward0's d/dself:", "  d/dself = grad * other"]
    assert nodes["_SquareBackward"].rule_lines() == ["_Square.backward(ctx, grad): the Function's own backward()"]
    assert nodes["CopyBackwards"].rule_lines() == ["d/dself = grad (passed through unchanged)"]
