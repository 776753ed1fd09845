"""Focused tests for discrepancies the random-graph oracle (tests/oracle) found.

Each expected value, name and message here was read off real PyTorch 2.13;
these tests run without it.
"""

from __future__ import annotations

import pytest

from gradcli.engine import api

T = api.TORCH


def edges(t: object) -> list:
    return [None if fn is None else type(fn).__name__ for fn, _ in t.grad_fn.next_functions]


def leaf(*values: float) -> object:
    return T["tensor"](list(values), requires_grad=True)


# -- graph inputs of Scalar overloads ------------------------------------------------------------

def test_clamp_with_numbers_has_one_edge_with_a_tensor_bound_three() -> None:
    x = leaf(1.0, 2.0)
    assert edges(T["clamp"](x, min=1)) == ["AccumulateGrad"]
    assert edges(x.clip(max=0.5)) == ["AccumulateGrad"]
    assert edges(T["clamp"](x, min=T["ones"](2))) == ["AccumulateGrad", None, None]
    assert edges(T["clamp"](x, min=T["ones"](2), max=3.0)) == ["AccumulateGrad", None, None]


def test_floor_divide_node_has_edges_only_for_inputs_that_require_grad() -> None:
    x = leaf(1.0, 2.0)
    assert edges(T["floor_divide"](x, T["ones"](2))) == ["AccumulateGrad"]
    assert edges(T["floor_divide"](T["ones"](2), x)) == ["AccumulateGrad"]
    assert edges(T["floor_divide"](x, x)) == ["AccumulateGrad", "AccumulateGrad"]
    assert edges(x // 2) == ["AccumulateGrad"]


# -- dtypes the CPU kernels refuse -----------------------------------------------------------------

def raises(fn: object, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize("name, kernel", [("abs", "abs_cpu"), ("floor", "floor_vml_cpu"), ("ceil", "ceil_vml_cpu"),
                                          ("trunc", "trunc_vml_cpu"), ("round", "round_vml_cpu"),
                                          ("frac", "frac_cpu")])
def test_unary_kernels_refuse_bool(name: str, kernel: str) -> None:
    raises(lambda: T[name](T["tensor"]([True])), NotImplementedError, f"\"{kernel}\" not implemented for 'Bool'")


def test_frac_refuses_integers_and_hypot_needs_a_float_result() -> None:
    raises(lambda: T["tensor"]([3]).frac(), NotImplementedError, "\"frac_cpu\" not implemented for 'Long'")
    raises(lambda: T["hypot"](T["tensor"]([1]), T["tensor"]([1])), NotImplementedError,
           "\"hypot_cpu\" not implemented for 'Long'")
    assert T["hypot"](T["tensor"]([3]), T["tensor"]([4.0])).tolist() == [5.0]


def test_subtraction_with_any_bool_operand() -> None:
    message = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
               "mask, use the `~` or `logical_not()` operator instead.")
    raises(lambda: T["ones"](2) - True, RuntimeError, message)
    raises(lambda: 2.5 - T["tensor"]([True]), RuntimeError, message)
    raises(lambda: T["tensor"]([True]) - T["ones"](3), RuntimeError, message)  # before the shape check


def test_remainder_zero_keeps_the_dividend_sign_and_refuses_bool() -> None:
    r = T["remainder"](T["tensor"]([-0.5, 0.5, -1.5, 1.0]), 0.5)
    assert [str(v) for v in r.tolist()] == ["-0.0", "0.0", "-0.0", "0.0"]
    assert str(T["remainder"](T["tensor"]([-2.0]), 0.75).tolist()) == "[0.25]"
    raises(lambda: T["tensor"]([True]) % T["tensor"]([True]), NotImplementedError,
           "\"remainder_cpu\" not implemented for 'Bool'")


def test_lerp_does_not_promote() -> None:
    f = T["ones"](2)
    raises(lambda: T["lerp"](f, T["tensor"]([1, 2]), 0.5), RuntimeError,
           "expected dtype float for `end` but got dtype long int")
    raises(lambda: T["lerp"](f, f, T["ones"](2, dtype=T["float64"])), RuntimeError,
           "expected dtype float for `weight` but got dtype double")
    assert T["lerp"](f, f, T["tensor"](0.5, dtype=T["float64"])).tolist() == [1.0, 1.0]  # a 0-dim weight may differ
    raises(lambda: T["lerp"](T["tensor"]([1]), T["tensor"]([2]), 0.5), NotImplementedError,
           "\"lerp_kernel_scalar\" not implemented for 'Long'")


def test_clamp_checks_broadcasting_like_pytorch() -> None:
    raises(lambda: T["clamp"](T["ones"](3), min=T["ones"](2)), RuntimeError,
           "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0")
