"""The engine's caches by call shape give what the general path gives (issue 13's fast path).

Each test makes a call twice -- the second is served from a cache made by the first -- and
checks that a call of the same types but other values still takes the general path where the
values matter.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import gradcli.engine.api  # noqa: F401  (publishes the ops on Tensor)
from gradcli.engine import dtypes
from gradcli.engine.autograd import node_plans
from gradcli.engine.dispatch.signature import ArgParser
from gradcli.engine.errors import TorchRuntimeError, TorchTypeError
from gradcli.engine.tensor import Tensor


def tensor(values, dtype=np.float32, requires_grad: bool = False) -> Tensor:
    t = Tensor._make(np.array(values, dtype=dtype))
    if requires_grad:
        t.requires_grad_()
    return t


# -- bindings ---------------------------------------------------------------------------------

def test_a_remembered_binding_fills_in_new_values() -> None:
    parser = ArgParser(["add(Tensor input, Tensor other, *, Scalar alpha=1)"])
    a, b, c = tensor(1.0), tensor(2.0), tensor(3.0)
    first = parser.parse((a, b), {})
    again = parser.parse((c, a), {})
    assert first == (0, {"input": a, "other": b, "alpha": 1})
    assert again == (0, {"input": c, "other": a, "alpha": 1})


def test_gathered_or_converted_arguments_are_not_remembered() -> None:
    parser = ArgParser(["view(Tensor input, int[] size)"], method=True)
    x = tensor(np.zeros(6))
    assert parser.parse((x, 2, 3), {})[1]["size"] == (2, 3)  # gathered: not remembered
    assert parser.parse((x, 3, 2), {})[1]["size"] == (3, 2)
    floats = ArgParser(["f(Tensor input, float[] values)"])
    bound = floats.parse((x, (1, 2)), {})[1]["values"]
    assert bound == (1.0, 2.0) and all(type(v) is float for v in bound)
    bound = floats.parse((x, (1, 2)), {})[1]["values"]
    assert all(type(v) is float for v in bound)  # the ints still become floats


def test_a_tuple_of_other_elements_is_another_shape() -> None:
    parser = ArgParser(["expand(Tensor input, int[] size)"], method=True)
    x = tensor([1.0])
    assert parser.parse((x, (2, 3)), {})[1]["size"] == (2, 3)
    with pytest.raises(TorchTypeError):
        parser.parse((x, (2.5, 3)), {})  # the value check still runs for floats


def test_a_later_overload_is_remembered_only_when_the_earlier_fail_by_shape() -> None:
    parser = ArgParser(["sum(Tensor input, *, dtype? dtype=None)",
                        "sum(Tensor input, int[1]? dim, bool keepdim=False, *, dtype? dtype=None)"],
                       method=True)
    x = tensor(np.ones((2, 2)))
    assert parser.parse((x, (0,)), {"keepdim": True}) == (1, {"input": x, "dim": (0,), "keepdim": True,
                                                               "dtype": None})
    assert parser.parse((x, (1,)), {"keepdim": False})[1]["dim"] == (1,)
    scalar = ArgParser(["f(Tensor input, Scalar value)", "f(Tensor input, Tensor other)"])
    one, many = tensor([2.0]), tensor([1.0, 2.0])
    assert scalar.parse((x, one), {})[0] == 0  # a one-element tensor is a Scalar here...
    assert scalar.parse((x, many), {})[0] == 1  # ...and two elements are not: nothing remembered


def test_a_keyword_by_alias_is_not_remembered() -> None:
    parser = ArgParser(["sum(Tensor input, int[1]? dim, bool keepdim=False)"], method=True)
    x = tensor(np.ones((2, 2)))
    assert parser.parse((x,), {"axis": (0,)})[1]["dim"] == (0,)
    assert parser.parse((x,), {"axis": (1,)})[1]["dim"] == (1,)


# -- promotion --------------------------------------------------------------------------------

def test_promotion_is_remembered_by_dtype_and_priority() -> None:
    f32, i64 = tensor(np.ones(2)), tensor(np.ones(2), np.int64)
    zero_d = tensor(1.0, np.float64)
    assert dtypes.pair_result_type(f32, zero_d) is dtypes.float32
    assert dtypes.pair_result_type(i64, zero_d) is dtypes.float64
    assert dtypes.result_type([i64, 2.5]) is dtypes.float32
    dtypes.set_default_dtype(dtypes.float64)
    try:
        assert dtypes.result_type([i64, 2.5]) is dtypes.float64  # the default changed: forgotten
    finally:
        dtypes.set_default_dtype(dtypes.float32)
    assert dtypes.result_type([i64, 2.5]) is dtypes.float32


# -- node plans ---------------------------------------------------------------------------------

def test_a_planned_node_is_the_node_the_general_path_makes() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 3.0
    z = x * 3.0  # from the plan
    assert type(y.grad_fn) is type(z.grad_fn)
    assert y.grad_fn._saved_other.item() == z.grad_fn._saved_other.item() == 3.0
    assert z.grad_fn._saved_self is None  # only other is needed: self is not saved
    assert [n for n, _ in z.grad_fn.next_functions] == [x._grad_accumulator(), None]
    z.sum().backward()
    assert x.grad._data.tolist() == [3.0, 3.0]


def test_a_view_input_takes_the_general_path() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    v = x[0:1]
    bound = {"self": v, "other": tensor(2.0)}
    from gradcli.engine.dispatch.publish import OPS
    assert node_plans.plan_for(OPS["mul"], bound) is node_plans.GENERAL


def test_nothing_requiring_grad_makes_no_node() -> None:
    y = tensor([1.0]) * 2.0
    assert y.grad_fn is None


# -- saved outputs ----------------------------------------------------------------------------

def test_a_saved_output_unpacks_as_a_new_tensor_of_the_node() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert saved is not y  # as in PyTorch
    assert saved.grad_fn is y.grad_fn and np.array_equal(saved._data, y._data)
    y.mul_(2)
    with pytest.raises(TorchRuntimeError, match="which is output 0 of Exp, is at version 1; expected version 0"):
        y.sum().backward()


def test_a_graph_is_freed_when_dropped_without_a_collection() -> None:
    collecting = gc.isenabled()
    gc.disable()
    try:
        x = tensor([1.0, 2.0], requires_grad=True)
        y = x.exp().tanh().sigmoid() * 2
        node = weakref.ref(y.grad_fn.next_functions[0][0])
        del y
        assert node() is None
    finally:
        if collecting:
            gc.enable()
