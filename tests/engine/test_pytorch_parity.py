"""Focused tests for discrepancies the random-graph oracle (tests/oracle) found.

Each expected value, name and message here was read off real PyTorch 2.13;
these tests run without it.  The short scenarios of parity_scenarios.py are
compared with the outcomes tests/tools/make_parity_expected.py recorded from
PyTorch in tests/data/parity_expected.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gradcli.engine import api

import parity_scenarios  # tests/engine is on sys.path (pytest rootdir-relative import)

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


# -- views made under no_grad, multi-output views, in-place checks -----------------------------------

NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
                "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
MULTI = (" This view is the output of a function that returns multiple views. Such functions do not allow the output "
         "views to be modified inplace. You should replace the inplace operation by an out-of-place one.")


def test_a_view_made_under_no_grad_requires_grad_but_has_no_edge() -> None:
    a = T["ones"](3, requires_grad=True)
    with T["no_grad"]():
        b = a[0:2]
    assert (b.requires_grad, b.is_leaf, b.grad_fn) == (True, True, None)
    c = b * 2
    assert type(c.grad_fn).__name__ == "MulBackward0" and edges(c) == [None, None]
    c.sum().backward()
    assert a.grad is None
    raises(lambda: b.add_(1), RuntimeError, NO_GRAD_VIEW)


def test_a_view_of_a_base_that_later_requires_grad_requires_grad() -> None:
    x = T["ones"](3)
    v = x[0:2]
    x.requires_grad_()
    assert (v.requires_grad, v.is_leaf) == (True, True)
    raises(lambda: v.add_(1), RuntimeError,
           "a view of a leaf Variable that requires grad is being used in an in-place operation.")


def test_outputs_of_split_may_not_be_changed_in_place() -> None:
    h = T["ones"](2, 3, requires_grad=True) * 1
    parts = h.split(1)
    raises(lambda: parts[0].mul_(2), RuntimeError, "Output 0 of Split is a view and is being modified inplace." + MULTI)
    h.add_(1)
    raises(lambda: parts[1].grad_fn, RuntimeError,
           "Output 1 of Split is a view and its base or another view of its base has been modified inplace." + MULTI)
    plain = T["ones"](2, 3).split(1)
    plain[0].add_(1)  # nothing to record: allowed
    assert plain[0].tolist() == [[2.0, 2.0, 2.0]]


def test_leaf_checks_come_before_the_kernel_checks() -> None:
    a = T["ones"](3, requires_grad=True)
    leaf_error = "a leaf Variable that requires grad is being used in an in-place operation."
    raises(lambda: a.copy_(T["ones"](2)), RuntimeError, leaf_error)
    raises(lambda: a.clamp_(), RuntimeError, leaf_error)


def test_requires_grad_flags_of_non_leaves_and_detach_of_views() -> None:
    h = T["ones"](2, requires_grad=True) * 2
    assert h.requires_grad_() is h
    raises(lambda: h.requires_grad_(False), RuntimeError,
           "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in "
           "a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    with pytest.raises(RuntimeError, match="^Can't detach views in-place"):
        T["ones"](3)[0].detach_()


# -- indexing and index assignment ---------------------------------------------------------------------

def test_a_0_dim_bool_index_adds_a_dim() -> None:
    assert tuple(T["ones"](3)[T["tensor"](False)].shape) == (0, 3)
    assert T["tensor"](1.0)[T["tensor"](True)].tolist() == [1.0]
    t = T["ones"](2)
    t[T["tensor"](False)] = 5.0
    assert t.tolist() == [1.0, 1.0]


def test_index_errors_word_for_word() -> None:
    s = T["tensor"](1.0)
    raises(lambda: s[0], IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                     "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    raises(lambda: s[:], IndexError, "slice() cannot be applied to a 0-dim tensor.")
    raises(lambda: T["ones"](3)[::0], ValueError, "slice step cannot be zero")
    raises(lambda: T["ones"](0, 2)[T["tensor"]([0])], IndexError, "index is out of bounds for dimension with size 0")
    mask = T["ones"](4, 3, dtype=T["bool"])
    raises(lambda: T["ones"](4, 3, 2)[mask, [0, 1, 0]], IndexError,
           "shape mismatch: indexing tensors could not be broadcast together with shapes [12], [12], [3]")


def test_index_assignment_checks_and_graphs() -> None:
    t = T["ones"](3)
    raises(lambda: t.__setitem__(T["tensor"]([0]), T["tensor"](1.0, dtype=T["float64"])), RuntimeError,
           "Index put requires the source and destination dtypes match, got Float for the destination and Double "
           "for the source.")
    m = T["ones"](3, 2)
    m[T["tensor"]([True, False, True])] = T["tensor"](5.0, dtype=T["float64"])  # masked_fill_ takes any dtype
    assert m.tolist() == [[5.0, 5.0], [1.0, 1.0], [5.0, 5.0]]
    raises(lambda: T["ones"](2, 4).__setitem__(slice(1, None), T["ones"](2)), RuntimeError,
           "The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 1.  "
           "Target sizes: [1, 4].  Tensor sizes: [2]")
    x = T["ones"](3, 2, requires_grad=True)
    h = x * 1
    h[0:3] = 2.0  # a whole-range slice writes h itself: fill_
    assert type(h.grad_fn).__name__ == "FillBackward3" and edges(h) == ["MulBackward0", None]
    h2 = x * 1
    h2[1] = T["ones"](1, 2, requires_grad=True)  # the value without its leading ones
    assert edges(h2) == ["MulBackward0", "ViewBackward0"]
    leaf_error = "a leaf Variable that requires grad is being used in an in-place operation."
    raises(lambda: x.__setitem__(Ellipsis, 1.0), RuntimeError, leaf_error)
    raises(lambda: x.__setitem__(slice(None), 1.0), RuntimeError, leaf_error)
    raises(lambda: x.__setitem__(None, 1.0), RuntimeError, "a view of " + leaf_error)


def test_whole_range_slices_in_a_tuple_are_skipped() -> None:
    x = T["ones"](3, 2, requires_grad=True)
    assert edges(x[0:100, 0]) == ["AccumulateGrad"]
    assert type(x[0:3].grad_fn).__name__ == "SliceBackward0"


# -- reductions --------------------------------------------------------------------------------------

def test_reductions_refuse_empty_and_bool_inputs() -> None:
    raises(lambda: T["ones"](0).amax(), RuntimeError,
           "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
           "the 'dim' argument.")
    raises(lambda: T["ones"](0, 2).amin((0, 1)), IndexError, "amin(): Expected reduction dim 0 to have non-zero size.")
    assert tuple(T["ones"](0, 2).amax(1).shape) == (0,)
    raises(lambda: T["ones"](0, 2).argmax(0), IndexError, "argmax(): Expected reduction dim 0 to have non-zero size.")
    raises(lambda: T["ones"](0).argmin(), IndexError,
           "argmin(): Expected reduction dim to be specified for input.numel() == 0.")
    raises(lambda: T["tensor"]([True]).argmax(), RuntimeError, "argmax(): does not support bool input")


def test_var_warns_without_degrees_of_freedom() -> None:
    from gradcli.engine import warnings as engine_warnings
    seen: list[str] = []
    engine_warnings.set_warning_handler(lambda category, message: seen.append(message))
    try:
        assert str(T["ones"](1).std().item()) == "nan"
    finally:
        engine_warnings.set_warning_handler(None)
    assert seen == ["std(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                    "factor (input numel divided by output numel). (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)"]


def test_allclose_and_cumulative_in_place_do_not_convert() -> None:
    raises(lambda: T["allclose"](T["ones"](1), T["ones"](1, dtype=T["int32"])), RuntimeError,
           "Float did not match Int")
    raises(lambda: T["ones"](2, dtype=T["float64"]).cumsum_(0, dtype=T["float32"]), RuntimeError,
           "Bad in-place call: input tensor dtype double and output tensor dtype float should match")
    raises(lambda: T["ones"](2, dtype=T["bool"]).cumprod_(0), NotImplementedError,
           "\"cumprod_out_cpu\" not implemented for 'Bool'")
    assert T["ones"](2, dtype=T["int32"]).cumsum_(0).tolist() == [1, 2]


# -- linear algebra --------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, kernel", [((2, 2), (2, 2), "addmm_impl_cpu_"), ((2, 2), (2,), "addmv_impl_cpu"),
                                          ((2,), (2,), "dot"), ((1, 2, 2), (1, 2, 2), "bmm")])
def test_matmul_refuses_bool(a: tuple, b: tuple, kernel: str) -> None:
    x, y = T["ones"](*a, dtype=T["bool"]), T["ones"](*b, dtype=T["bool"])
    raises(lambda: x @ y, NotImplementedError, f"\"{kernel}\" not implemented for 'Bool'")


def test_matmul_of_a_vector_and_a_matrix_is_at_version_1() -> None:
    assert (T["ones"](2) @ T["ones"](2, 3))._version == 1  # PyTorch squeezes in place
    assert (T["ones"](2, 2) @ T["ones"](2))._version == 0


def test_matmul_folds_an_empty_batch_and_other_linalg_messages() -> None:
    assert tuple((T["ones"](2, 1, 0) @ T["ones"](0, 2)).shape) == (2, 1, 2)
    raises(lambda: T["outer"](T["ones"](2), T["ones"](2, 2)), RuntimeError, "outer: Expected 1-D argument vec2, but got 2-D")
    raises(lambda: T["ones"](2, 2, 2, dtype=T["bool"]).trace(), NotImplementedError,
           "\"trace\" not implemented for 'Bool'")


def test_inv_of_a_singular_matrix_is_a_linalg_error() -> None:
    inv = api.SUBMODULES["linalg"]["inv"]
    with pytest.raises(RuntimeError) as info:
        inv(T["tensor"]([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]]))
    assert type(info.value).__name__ == "torch._C._LinAlgError"
    assert str(info.value) == ("linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could "
                               "not be completed because the input matrix is singular.")


# -- shapes, warnings once, messages -----------------------------------------------------------------

def caught_warnings(fn: object) -> list[str]:
    from gradcli.engine import warnings as engine_warnings
    seen: list[str] = []
    engine_warnings.set_warning_handler(lambda category, message: seen.append(message))
    try:
        fn()
    finally:
        engine_warnings.set_warning_handler(None)
    return seen


def test_T_and_mT_warnings_come_once_per_process() -> None:
    api.reset_global_state(0)
    cube, scalar = T["ones"](2, 2, 2), T["tensor"](1.0)
    seen = caught_warnings(lambda: (cube.T, cube.T, scalar.T, scalar.mT, scalar.mT))
    assert [m.split(".")[0] for m in seen] == [
        "The use of `x", "Tensor", "Tensor"]
    assert seen[1].startswith("Tensor.T is deprecated on 0-D tensors. This function is the identity")
    assert seen[2].startswith("Tensor.mT is deprecated on 0-D tensors. This function is the identity")
    assert scalar.mT is scalar
    api.reset_global_state(0)
    assert len(caught_warnings(lambda: cube.T)) == 1


def test_shape_messages_word_for_word() -> None:
    assert T["tensor"](1.0).flip(0).item() == 1.0
    raises(lambda: T["ones"](1, 1).split([1, 1], -1), RuntimeError,
           "split_with_sizes expects split_sizes to sum exactly to 1 (input tensor's size at dimension -1), but got "
           "split_sizes=[1, 1]")
    raises(lambda: T["ones"](0, 2).reshape(-1, 0), RuntimeError,
           "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be "
           "any value and is ambiguous")
    raises(lambda: T["ones"](3, 3, 3, dtype=T["bool"]).expand(3, 3), RuntimeError,
           "expand(CPUBoolType{[3, 3, 3]}, size=[3, 3]): the number of sizes provided (2) must be greater or equal to "
           "the number of dimensions in the tensor (3)")


def test_modified_leaf_message_has_no_comma() -> None:
    a = T["ones"](2, requires_grad=True)
    d = a.sin()
    with T["no_grad"]():
        a.add_(1)
    raises(lambda: d.sum().backward(), RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace operation: "
           "[torch.FloatTensor [2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to "
           "find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
           "check_nan=False).")


def test_index_select_messages() -> None:
    raises(lambda: T["ones"](2, 3, 4).index_select(1, T["tensor"]([3])), RuntimeError,
           "INDICES element is out of DATA bounds, id=3 axis_dim=3")
    raises(lambda: T["ones"](2, 3, 4).index_select(2, T["tensor"]([4])), IndexError, "index out of range in self")
    raises(lambda: T["ones"](3).index_select(0, T["tensor"]([-1])), IndexError, "index out of range in self")
    raises(lambda: T["ones"](2, 0, 4).index_select(1, T["tensor"]([0])), RuntimeError,
           "index_select(): self indexing axis dim should be positive")
    raises(lambda: T["ones"](3).index_select(0, T["tensor"]([1.0])), RuntimeError,
           "index_select(): Expected dtype int32 or int64 for index")


def test_integer_results_of_differentiable_ops_and_var_at_one_degree() -> None:
    x = T["ones"](3, requires_grad=True)
    raises(lambda: x.sum(dtype=T["int64"]), RuntimeError, "Autograd not support dtype: Long")
    assert not x.long().requires_grad
    one = T["ones"](1, requires_grad=True)
    caught_warnings(lambda: one.var(0, keepdim=True).sum().backward())
    assert str(one.grad.tolist()) == "[nan]"
    raises(lambda: T["ones"](1, dtype=T["int32"]).cumsum_(1, dtype=T["float32"]), IndexError,
           "Dimension out of range (expected to be in range of [-1, 0], but got 1)")


# -- comparisons, pow and round of integers ----------------------------------------------------------

def test_comparison_functions_take_a_number_only_as_other() -> None:
    x = T["ones"](3)
    assert T["le"](x, 2).tolist() == [True] * 3
    raises(lambda: T["le"](2.0, x), TypeError,
           "le() received an invalid combination of arguments - got (float, Tensor), but expected one of:\n"
           " * (Tensor input, Tensor other, *, Tensor out = None)\n"
           " * (Tensor input, Number other, *, Tensor out = None)\n")


def test_in_place_comparisons_are_recorded_with_zero_gradients() -> None:
    x, other = T["ones"](3, requires_grad=True), T["zeros"](3, requires_grad=True)
    h = x * 1
    h.gt_(0)
    assert type(h.grad_fn).__name__ == "GtBackward0" and edges(h) == ["MulBackward0"]
    k = x * 1
    k.lt_(other)
    assert type(k.grad_fn).__name__ == "LtBackward1" and edges(k) == ["MulBackward0", "AccumulateGrad"]
    (h + k).sum().backward()
    assert x.grad.tolist() == [0.0] * 3 and other.grad.tolist() == [0.0] * 3
    assert (x > 0).grad_fn is None


def test_integer_pow_and_round() -> None:
    assert T["pow"](T["tensor"]([2, -1, 0, 1, -1]), T["tensor"]([-1, -3, -1, -5, -2])).tolist() == [0, -1, 0, 1, 1]
    raises(lambda: T["tensor"]([2]) ** -1, RuntimeError, "Integers to negative integer powers are not allowed.")
    assert T["tensor"]([3]).round().tolist() == [3]
    raises(lambda: T["tensor"]([3]).round(decimals=1), NotImplementedError, "\"round_cpu\" not implemented for 'Long'")
    raises(lambda: T["tensor"]([3]).round(decimals=0), NotImplementedError,
           "\"round_vml_cpu\" not implemented for 'Long'")


# -- gradient formulas as PyTorch writes them; what nodes save -----------------------------------------

def test_clamp_and_maximum_gradients_use_where() -> None:
    x = T["tensor"]([1.0, -2.0, 3.0], requires_grad=True)
    lo = T["tensor"]([2.0, 5.0, 0.0], requires_grad=True)
    hi = T["tensor"]([4.0, 1.0, 1.0], requires_grad=True)
    T["clamp"](x, min=lo, max=hi).mul(T["tensor"]([-1.0, -2.0, -3.0])).sum().backward()
    # min > max gives max (and its gradient); blocked gradients are +0, not -0
    assert [str(v) for v in x.grad.tolist()] == ["0.0", "0.0", "0.0"]
    assert (lo.grad.tolist(), hi.grad.tolist()) == ([-1.0, 0.0, 0.0], [0.0, -2.0, -3.0])
    a = T["tensor"]([float("nan"), 1.0, 2.0], requires_grad=True)
    b = T["tensor"]([1.0, 1.0, 3.0], requires_grad=True)
    T["maximum"](a, b).mul(T["tensor"]([-1.0, -1.0, -1.0])).sum().backward()
    assert [str(v) for v in a.grad.tolist()] == ["-1.0", "-0.5", "0.0"]  # NaN passes the gradient to both
    assert b.grad.tolist() == [-1.0, -0.5, -1.0]


def test_remainder_of_a_number_by_a_tensor_has_no_derivative() -> None:
    y = T["ones"](2, requires_grad=True)
    z = 2 % y
    assert type(z.grad_fn).__name__ == "NotImplemented" and edges(z) == ["AccumulateGrad"]
    raises(lambda: z.sum().backward(), RuntimeError, "derivative for aten::remainder is not implemented")


def test_nodes_save_what_pytorch_saves() -> None:
    y = T["ones"](2, requires_grad=True)
    p = (y * 1) ** 2  # PowBackward0 keeps no result: changing it is fine
    p.add_(1)
    p.sum().backward()
    m = (y * 1).max(0)  # MaxBackward0 keeps the indices only
    m.values.add_(1)
    m.values.sum().backward()
    q = (y * 1).prod()  # ProdBackward0 keeps its result
    q.add_(1)
    raises(lambda: q.backward(), RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace operation: "
           "[torch.FloatTensor []], which is output 0 of Prod, is at version 1; expected version 0 instead. Hint: "
           "enable anomaly detection to find the operation that failed to compute its gradient, with "
           "torch.autograd.set_detect_anomaly(True, check_nan=False).")
    u = (y * 1).clamp(max=1.0)
    v = u.sin()
    with T["no_grad"]():
        u.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\], which is output 0 of Clamp1, is at"):
        v.sum().backward()  # the node is named as PyTorch's messages name it: Clamp1, not Clamp


def test_an_in_place_op_reads_its_inputs_before_writing() -> None:
    x = T["tensor"]([1.0, 2.0, 3.0, 4.0], dtype=T["float64"], requires_grad=True)
    v = x.cumprod(-1)
    v.clamp_(min=T["tensor"](0.5), max=v)  # `max` is v itself: saved at version 0, then written
    with pytest.raises(RuntimeError, match=r"^one of the variables .* which is output 0 of Clamp, is at version 1"):
        v.sum().backward()
    w = T["ones"](1, requires_grad=True).cumsum(0, dtype=T["float64"])
    with T["no_grad"]():
        s = w.squeeze(0)
    w.fill_(s)  # s is a view of w made under no_grad: its edge is taken before the write
    assert type(w.grad_fn).__name__ == "FillBackward3"


def test_overlapping_memory_in_place() -> None:
    h = T["ones"](2, 2, requires_grad=True) * 1
    raises(lambda: h.add_(h.t()), RuntimeError,
           "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.")
    e = T["ones"](2, 1).expand(2, 3)
    assert e.zero_().tolist() == [[0.0] * 3] * 2  # fill_ may write shared memory
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element"):
        e.add_(1)
    assert T["ones"](1).expand(1).add_(1).tolist() == [2.0]  # nothing repeated: writable


def test_index_dim_and_cast_messages_word_for_word() -> None:
    raises(lambda: T["tensor"](2.0)[-1], IndexError, "index -1 is out of bounds for dimension 0 with size 0")
    raises(lambda: T["tensor"]([[1.0], [2.0]]).softmax(2), IndexError,
           "Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    raises(lambda: T["ones"](1, dtype=T["int32"]).clamp_(min=0.5), RuntimeError,
           "result type Float can't be cast to the desired output type int")


def test_index_assignment_and_cumsum_in_place_refuse_a_leaf() -> None:
    leaf = T["ones"](2, 2, requires_grad=True)
    raises(lambda: leaf.__setitem__((T["tensor"]([False, False]), T["tensor"]([1, 1, 0])), 1.0), RuntimeError,
           "a leaf Variable that requires grad is being used in an in-place operation.")
    raises(lambda: leaf.cumsum_(0, dtype=T["float64"]), RuntimeError,
           "a leaf Variable that requires grad is being used in an in-place operation.")


def test_a_whole_range_slice_is_skipped_only_when_it_starts_at_zero() -> None:
    x = T["ones"](3, 2, requires_grad=True)
    assert edges(x[-3:, 0]) == ["SliceBackward0"] and edges(x[0:, 0]) == ["AccumulateGrad"]


# -- saved index tensors, hand-written nodes, where; node names and kernel refusals --------------------

def test_index_tensors_are_saved_tensors() -> None:
    x = T["ones"](3, requires_grad=True)
    y = (x * 1)[T["tensor"]([0, 2])].sum()
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()
    idx = T["tensor"]([0, 1])
    z = (x * 1)[idx]
    idx.add_(0)
    with pytest.raises(RuntimeError, match=r"\[torch.LongTensor \[2\]\] is at version 1; expected version 0"):
        z.sum().backward()


def test_hand_written_nodes_keep_their_namespace_in_messages() -> None:
    h = T["ones"](3, requires_grad=True) * 1
    h[0] = 5.0
    v = h.sin()
    with T["no_grad"]():
        h.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of torch::autograd::CopySlices, is at version 2;"):
        v.sum().backward()


def test_where_gradient_is_a_where() -> None:
    w = T["tensor"]([float("inf"), -1.0], requires_grad=True)
    (T["where"](T["tensor"]([False, True]), w, 0.0) * -1).sum().backward()
    assert [str(v) for v in w.grad.tolist()] == ["0.0", "-1.0"]  # not inf * 0 = nan, not -0
    raises(lambda: T["ones"](2, 3).where(T["ones"](2, 2, 1, dtype=T["bool"]), T["ones"](2)), RuntimeError,
           "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 2")


def test_div_with_rounding_mode_none_is_div_backward2() -> None:
    x = T["ones"](2, requires_grad=True)
    assert type(x.div(2, rounding_mode=None).grad_fn).__name__ == "DivBackward2"


def test_floor_divide_in_place_has_no_derivative() -> None:
    f = T["ones"](2, requires_grad=True) * 1
    f.floor_divide_(2)
    raises(lambda: f.sum().backward(), RuntimeError, "derivative for aten::floor_divide_ is not implemented")


def test_pow_of_bools_refuses_a_bool_tensor_exponent_but_not_a_bool_number() -> None:
    raises(lambda: T["pow"](T["tensor"]([True]), T["tensor"]([True])), NotImplementedError,
           "\"pow\" not implemented for 'Bool'")
    assert (T["tensor"]([True]) ** True).tolist() == [True]


def test_chunk_of_an_empty_tensor_gives_every_chunk() -> None:
    parts = T["ones"](0).chunk(2)
    assert len(parts) == 2 and all(tuple(p.shape) == (0,) for p in parts)


def test_clamp_gradient_with_broadcast_bounds_fails_as_pytorchs_does() -> None:
    a = T["ones"](1, 2, requires_grad=True)
    hi = T["ones"](1, requires_grad=True)  # PyTorch combines the masks in place, and so fails here
    raises(lambda: T["clamp"](a * 1, min=T["zeros"](3, 1, 2), max=hi).sum().backward(), RuntimeError,
           "output with shape [1, 2] doesn't match the broadcast shape [3, 1, 2]")


def test_a_leaf_detached_in_place_gets_no_gradient() -> None:
    leaf = T["tensor"]([1.0, 2.0], requires_grad=True)
    product = leaf * 1
    leaf.detach_()
    product.sum().backward()
    assert leaf.grad is None


def test_index_put_dtype_overlap_and_expanded_targets() -> None:
    t = T["ones"](3)
    raises(lambda: t.__setitem__(T["tensor"](False), T["tensor"]([1.75], dtype=T["float64"])), RuntimeError,
           "Index put requires the source and destination dtypes match, got Float for the destination and Double "
           "for the source.")
    raises(lambda: t.__setitem__(T["tensor"]([0, 1, 2]), t), RuntimeError,
           "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.")
    e = T["ones"](1).expand(3)
    seen = caught_warnings(lambda: e.__setitem__(T["tensor"]([True, False, True]), 2.0))
    assert [m.split(" on ")[0] for m in seen] == ["Use of index_put_", "Use of masked_fill_"]
    assert e.tolist() == [2.0, 2.0, 2.0]


def test_inf_norm_of_nothing_and_matmul_dtype_messages() -> None:
    raises(lambda: T["ones"](0, 2).norm(float("inf"), 0), RuntimeError,
           "linalg.vector_norm cannot compute the inf norm on the dimension 0because this dimension is empty and the "
           "operation does not have an identity")
    raises(lambda: T["ones"](0).norm(float("inf")), RuntimeError,
           "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an "
           "identity")
    raises(lambda: T["mv"](T["ones"](2, 2, dtype=T["float64"]), T["ones"](2)), RuntimeError,
           "addmv input tensors must have the same dtype, but got Float, Double, and Float")
    raises(lambda: T["ones"](2, 2, 2) @ T["ones"](2, 2, 1, dtype=T["int64"]), RuntimeError,
           "expected scalar type Float but found Long")
    assert (T["ones"](1, 0, dtype=T["bool"]) @ T["ones"](0, 2, dtype=T["bool"])).tolist() == [[False, False]]


# -- short scenarios, each case's outcome checked against PyTorch's ---------------------------------
#
# The scenarios are in parity_scenarios.py; what PyTorch 2.13 gives for each case is in
# tests/data/parity_expected.json, written by tests/tools/make_parity_expected.py.

EXPECTED = json.loads((Path(__file__).parents[1] / "data" / "parity_expected.json").read_text())["scenarios"]


def _namespace(*submodules: str) -> Any:
    """torch.X (and torch.<submodule>.X) for the scenario functions."""
    from types import SimpleNamespace
    namespace = SimpleNamespace(**T)
    for name in submodules:
        parent = namespace
        *outer, last = name.split(".")
        for part in outer:
            parent = getattr(parent, part)
        setattr(parent, last, SimpleNamespace(**api.SUBMODULES[name]))
    return namespace


def _assert_outcomes(outcomes: list[str], expected: list[str]) -> None:
    for i, (got, want) in enumerate(zip(outcomes, expected)):
        assert got == want, f"case {i}"
    assert len(outcomes) == len(expected)


def test_views_in_place_and_empty_tensors_match_pytorch() -> None:
    outcomes: list[str] = []
    caught_warnings(lambda: outcomes.extend(parity_scenarios.views_in_place_and_empty_tensors(_namespace())))
    _assert_outcomes(outcomes, EXPECTED["views_in_place_and_empty_tensors"])


def test_memory_overlap_signed_zeros_and_infinities_match_pytorch() -> None:
    outcomes: list[str] = []
    caught_warnings(lambda: outcomes.extend(
        parity_scenarios.memory_overlap_signed_zeros_and_infinities(_namespace("linalg"))))
    _assert_outcomes(outcomes, EXPECTED["memory_overlap_signed_zeros_and_infinities"])


def test_writes_through_views_and_expanded_tensors_match_pytorch() -> None:
    outcomes: list[str] = []
    caught_warnings(lambda: outcomes.extend(
        parity_scenarios.writes_through_views_and_expanded_tensors(_namespace("linalg", "autograd"))))
    _assert_outcomes(outcomes, EXPECTED["writes_through_views_and_expanded_tensors"])


def test_saved_views_zero_gradients_and_check_order_match_pytorch() -> None:
    _assert_outcomes(parity_scenarios.saved_views_zero_gradients_and_check_order(_namespace("autograd")),
                     EXPECTED["saved_views_zero_gradients_and_check_order"])


def test_custom_autograd_functions_match_pytorch() -> None:
    api.reset_global_state(0)
    outcomes: list[str] = []
    caught_warnings(lambda: outcomes.extend(
        parity_scenarios.custom_autograd_functions(_namespace("autograd", "autograd.function"))))
    _assert_outcomes(outcomes, EXPECTED["custom_autograd_functions"])


def test_float_of_a_tensor_requiring_grad_and_create_graph_backward_warn_once() -> None:
    api.reset_global_state(0)
    x = T["tensor"]([2.5], requires_grad=True)

    def run() -> None:
        x.item(), int(x)  # no warning: only float() converts with one
        float(x * 2), float(x)
        (x * x).sum().backward(create_graph=True)
        (x * x).sum().backward(create_graph=True)

    seen = caught_warnings(run)
    assert [m.split(" (Triggered")[0] for m in seen] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
        "Consider using tensor.detach() first.",
        "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
        "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
        "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
        "to None after use to break the cycle and avoid the leak."]
