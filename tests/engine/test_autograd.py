"""Unit tests of the autograd engine: graph order, accumulation, freeing, hooks, depth."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api

T = api.TORCH
tensor = T["tensor"]


def leaf(values, dtype=None):
    return tensor(values, dtype=dtype, requires_grad=True)


def test_fan_out_accumulates():
    x = leaf([1.0, 2.0])
    (x * x + x).sum().backward()
    assert x.grad.tolist() == [3.0, 5.0]


def test_second_backward_accumulates_in_place():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    first = x.grad
    (x * 5).sum().backward()
    assert first is x.grad and x.grad.tolist() == [8.0, 8.0]


def test_deep_graph_has_no_recursion_limit():
    x = leaf([1.0])
    y = x
    for _ in range(30_000):
        y = y + 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_freed_graph_refuses_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_graph_without_saved_tensors_runs_twice():
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_retain_graph_keeps_saved_values():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_autograd_grad_does_not_touch_dot_grad():
    x = leaf([1.0, 2.0])
    (g,) = api.SUBMODULES["autograd"]["grad"]((x ** 2).sum(), x)
    assert g.tolist() == [2.0, 4.0] and x.grad is None


def test_create_graph_gives_differentiable_gradient():
    grad = api.SUBMODULES["autograd"]["grad"]
    x = leaf(2.0)
    (d1,) = grad(x ** 3, x, create_graph=True)
    (d2,) = grad(d1, x, create_graph=True)
    (d3,) = grad(d2, x)
    assert (d1.item(), d2.item(), d3.item()) == (12.0, 12.0, 6.0)


def test_hooks_run_in_order_and_may_replace_the_gradient():
    x = leaf([1.0, 2.0])
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(("y", g.tolist())))
    y.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: seen.append(("x", g.tolist())))
    y.sum().backward()
    assert seen == [("y", [1.0, 1.0]), ("x", [20.0, 20.0])]
    assert x.grad.tolist() == [20.0, 20.0]


def test_retain_grad_accumulates_on_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    assert y.grad.tolist() == [6.0, 12.0]


def test_in_place_change_of_saved_tensor_is_detected():
    x = leaf([1.0, 2.0, 3.0])
    y = x.exp()
    z = (y * 2).sum()
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"output 0 of Exp, is at version 1; expected version 0"):
        z.backward()


def test_in_place_on_leaf_requiring_grad_is_refused():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.add_(1)
    with T["no_grad"]():
        x.add_(1)
    assert x.tolist() == [2.0] and x._version == 1


def test_copyslices_gradient_skips_overwritten_region():
    x = leaf([1.0, 2.0, 3.0])
    t = x * 1
    t[0] = 5.0
    assert t.grad_fn.name() == "CopySlices"
    t.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]


def test_broadcast_gradient_is_summed_to_input_shape():
    a = leaf([[1.0], [2.0]])
    b = leaf([1.0, 2.0, 3.0])
    (a * b).sum().backward()
    assert a.grad.tolist() == [[6.0], [6.0]] and b.grad.tolist() == [3.0, 3.0, 3.0]


def test_gradient_is_cast_to_input_dtype():
    a = leaf([1.0], dtype=T["float32"])
    b = leaf([2.0], dtype=T["float64"])
    (a * b).sum().backward()
    assert a.grad.dtype is T["float32"] and b.grad.dtype is T["float64"]


def test_next_functions_order_and_accumulate_grad():
    a = leaf([1.0, 2.0])
    y = a * tensor([3.0, 4.0]) + 1
    names = [(n.name() if n else None) for n, _ in y.grad_fn.next_functions]
    assert names == ["MulBackward0", None]
    inner = y.grad_fn.next_functions[0][0].next_functions
    assert inner[0][0].name() == "torch::autograd::AccumulateGrad" and inner[0][0].variable is a
    assert inner[1] == (None, 0)


def test_scalar_overload_has_single_edge():
    x = leaf([1.0, 2.0])
    assert len((x ** 2).grad_fn.next_functions) == 1
    assert len((x * 2).grad_fn.next_functions) == 2


def test_backward_inputs_limits_accumulation():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [3.0, 4.0] and b.grad is None


def test_allow_unused():
    grad = api.SUBMODULES["autograd"]["grad"]
    a, b = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used"):
        grad((a * 2).sum(), [a, b])
    ga, gb = grad((a * 2).sum(), [a, b], allow_unused=True)
    assert ga.tolist() == [2.0] and gb is None


def test_no_grad_records_nothing():
    x = leaf([1.0])
    with T["no_grad"]():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad


def test_int_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        tensor([1, 2], requires_grad=True)
    i = tensor([1, 2])
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        i.requires_grad_()


def test_float32_math_stays_float32():
    x = tensor([1.0, 2.0]) / 3
    assert x._data.dtype == np.float32
    assert x[0].item() == float(np.float32(1.0) / np.float32(3.0))
