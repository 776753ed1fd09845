"""Regressions of the long fuzz campaign (seed 14): each program used to end in an internal error
(or, for list(t), past the memory budget); each now gives PyTorch's result or PyTorch's error,
located.  The expected texts are what PyTorch 2.13 prints or raises for the same calls."""

from __future__ import annotations

import io

import pytest

from gradcli.engine import api, budget
from gradcli.lang import Session


def run(source: str) -> tuple[str, str]:
    api.reset_global_state(seed=0)
    out, err = io.StringIO(), io.StringIO()
    Session(stdout=out, stderr=err).run_source(source, "t.ag")
    return out.getvalue(), err.getvalue()


def caught(*calls: str, setup: str = "") -> str:
    """A script printing each call's result, or its error as ``Type message`` (after ``setup``)."""
    lines = ["import torch", "import math", "import numpy as np", "import torch.nn as nn",
             "import torch.nn.functional as F", "from torch.optim import lr_scheduler", setup]
    for call in calls:
        lines += ["try:", f"    print({call})", "except Exception as ex:", "    print(type(ex).__name__, ex)"]
    return "\n".join(lines) + "\n"


def test_batch_norm_module_of_a_list_fails_at_dim() -> None:
    out, err = run("import torch\nbn = torch.nn.BatchNorm1d(3)\nbn([[1.0, 2.0, 3.0]])\n")
    assert out == ""
    assert err == ("t.ag:3:1: AttributeError: 'list' object has no attribute 'dim'\n"
                   "    bn([[1.0, 2.0, 3.0]])\n    ^^^^^^^^^^^^^^^^^^^^^\n")


def test_fill_values_the_dtype_cannot_hold() -> None:
    out, err = run(caught("torch.full_like(torch.tensor([0, 2]), 2**63)", "torch.full_like(torch.tensor([0]), 2**64)",
                          "torch.ones(2, dtype=torch.int32).new_full((2,), 2**40)",
                          "torch.full_like(torch.tensor([1]), -2**63 - 1)", "torch.full((2,), 2**70, dtype=torch.bool)",
                          "torch.full((2,), 2**64 - 1, dtype=torch.bool)", "torch.full_like(torch.ones(2), 10**400)"))
    assert err == ""
    assert out == ("RuntimeError value cannot be converted to type int64_t without overflow\n"
                   "OverflowError int too big to convert\n"
                   "RuntimeError value cannot be converted to type int without overflow\n"
                   "OverflowError can't convert negative int to unsigned\n"
                   "OverflowError int too big to convert\n"
                   "tensor([True, True])\n"
                   "OverflowError int too big to convert\n")


def test_slice_bounds_that_are_not_ints_in_a_whole_dim_test() -> None:
    message = "TypeError slice indices must be integers or None or have an __index__ method\n"
    out, err = run(caught("x['a':, 1:]", "x[:1e400, 0]", "x[1.0:]", setup="x = torch.arange(9).reshape(3, 3)"))
    assert err == ""
    assert out == message * 3


def test_empty_mean_losses_backward() -> None:
    source = ("import torch\nimport torch.nn.functional as F\na = torch.randn(0, 1, requires_grad=True)\n"
              "for fn in [F.mse_loss, F.smooth_l1_loss, F.huber_loss]:\n"
              "    l = fn(a, torch.zeros(0, 1))\n    l.backward()\n    print(l, a.grad)\n")
    out, err = run(source)
    assert err == ""
    assert out == ("tensor(nan, grad_fn=<MseLossBackward0>) tensor([], size=(0, 1))\n"
                   "tensor(nan, grad_fn=<SmoothL1LossBackward0>) tensor([], size=(0, 1))\n"
                   "tensor(nan, grad_fn=<HuberLossBackward0>) tensor([], size=(0, 1))\n")


def test_empty_shapes_with_huge_sizes() -> None:
    out, err = run(caught("torch.zeros(0, 2, 2**62, dtype=torch.uint8)",
                          "torch.zeros(0, 0, 2**63 - 1, dtype=torch.uint8).stride()",
                          "torch.zeros(3, 0, 2**62)"))
    assert err == ""
    assert out == ("RuntimeError Stride calculation overflowed\n"
                   "(9223372036854775807, 9223372036854775807, 1)\n"
                   "NotImplementedError gradcli does not support an empty tensor of sizes [3, 0, 4611686018427387904]: "
                   "NumPy cannot describe one whose nonzero sizes span more than 9223372036854775807 bytes\n")


def test_multinomial_sizes_checked_before_drawing() -> None:
    out, err = run(caught("torch.multinomial(torch.ones(3, 2), 2**62, True)",
                          "torch.multinomial(torch.ones(2, 2), 2**61, True)",
                          "torch.multinomial(torch.ones(2), 2**62, True)"))
    assert err == ""
    assert out == ("RuntimeError numel: integer multiplication overflow\n"
                   "RuntimeError Storage size calculation overflowed with sizes=[2, 2305843009213693952]\n"
                   "RuntimeError Storage size calculation overflowed with sizes=[4611686018427387904]\n")


def test_tensor_of_a_range_too_long_for_len() -> None:
    out, err = run(caught("torch.Tensor(range(2**64))", "torch.tensor([range(2**63)])"))
    assert err == ""
    assert out == "OverflowError Python int too large to convert to C ssize_t\n" * 2


def test_iterating_a_huge_tensor_is_refused_by_the_memory_budget() -> None:
    previous = budget.max_memory()
    budget.set_max_memory(256 * 2**20)
    try:
        out, err = run("import torch\nr = torch.ones(1).expand(10**6) * 1\nprint(len(list(r)))\n")
    finally:
        budget.set_max_memory(previous)
    assert out == ""
    assert err == ("t.ag:3:11: MemoryError: gradcli refuses to build a tuple of 1000000 tensors (976.6 MB): the memory "
                   "limit is 256 MB (see --max-memory)\n    print(len(list(r)))\n              ^^^^^^^\n")


def test_batch_norm_of_an_empty_input_and_an_eps_that_does_not_compare() -> None:
    source = caught("nn.BatchNorm1d(3)(torch.ones(0, 3, requires_grad=True))",
                    "F.batch_norm(torch.ones(0, 3), torch.ones(4), torch.ones(4))",
                    "F.batch_norm(torch.ones(0, 3), None, None, weight=torch.ones(3) * 2, bias=torch.ones(3))",
                    "torch.native_batch_norm(torch.ones(0, 3), None, None, None, None, True, 0.1, 1e-5)",
                    "F.batch_norm(torch.ones(2, 3), None, None, eps=range(3))",
                    "F.batch_norm(torch.ones(2, 3), None, None, weight=torch.ones(2))")
    out, err = run(source)
    assert err == ""
    assert out == ("tensor([], size=(0, 3), grad_fn=<AddBackward0>)\n"
                   "tensor([], size=(0, 3))\n"
                   "tensor([], size=(0, 3))\n"
                   "RuntimeError input tensor must have at least one element, but got input_sizes = [0, 3]\n"
                   "TypeError '<' not supported between instances of 'range' and 'float'\n"
                   "RuntimeError running_mean must be defined in evaluation mode\n")


def test_ndarray_divided_by_a_tensor_that_does_not_broadcast() -> None:
    out, err = run(caught("np.ones(10) / torch.ones(2)", "np.ones(2) / torch.ones(2)"))
    assert err == ""
    assert out == ("ValueError operands could not be broadcast together with shapes (2,) (10,) \n"
                   "tensor([1., 1.], dtype=torch.float64)\n")


def test_activation_scalars_the_dtype_cannot_hold() -> None:
    out, err = run(caught(
        "torch.threshold(i, 1e-3, 1e300)", "torch.threshold(i, math.inf, 0)", "torch.threshold(i, 1, 2**64)",
        "F.hardtanh(torch.ones(2), -1e300, 1e300)", "torch.threshold(i, 1.5, 2.5)",
        setup="i = torch.tensor([0, 2, 1])"))
    assert err == ""
    assert out == ("RuntimeError value cannot be converted to type int64_t without overflow\n"
                   "RuntimeError value cannot be converted to type int64_t without overflow\n"
                   "OverflowError int too big to convert\n"
                   "RuntimeError value cannot be converted to type float without overflow\n"
                   "tensor([2, 2, 2])\n")


@pytest.mark.parametrize("maker, message", [
    ("lr_scheduler.StepLR(opt, 0)", "integer modulo by zero"),
    ("lr_scheduler.StepLR(opt, 0.0)", "float modulo"),
    ("lr_scheduler.CosineAnnealingLR(opt, 0)", "integer modulo by zero"),
])
def test_schedulers_with_a_zero_period(maker: str, message: str) -> None:
    source = ("import torch\nfrom torch.optim import lr_scheduler\nw = torch.zeros(1, requires_grad=True)\n"
              f"opt = torch.optim.SGD([w], lr=1.0)\ns = {maker}\nopt.step()\ns.step()\ns.step()\n")
    out, err = run(source)
    assert out == ""
    assert err.splitlines()[0] == f"t.ag:7:1: ZeroDivisionError: {message}"


def test_conv_channel_counts_checked_with_python_operators() -> None:
    out, err = run(caught("nn.Conv2d('a', 16, 5)", "nn.Conv2d(1.5, 16, 5)", "nn.Conv2d(None, 4, 3)",
                          "nn.Conv2d(4, 4, 3, 1, 0, 1, 'x')"))
    assert err == ""
    assert out == ("TypeError not all arguments converted during string formatting\n"
                   "ValueError in_channels must be divisible by groups\n"
                   "TypeError unsupported operand type(s) for %: 'NoneType' and 'int'\n"
                   "TypeError '<=' not supported between instances of 'str' and 'int'\n")


def test_param_group_tuples_too_short() -> None:
    source = caught("torch.optim.SGD([(q,)], lr=0.1)", "torch.optim.Adam([{'params': [q]}, {'params': [()]}])",
                    "len(torch.optim.SGD([('w', q, 3)], lr=0.1).param_groups)",
                    setup="q = torch.ones(1, requires_grad=True)")
    out, err = run(source)
    assert err == ""
    assert out == "IndexError tuple index out of range\nIndexError tuple index out of range\n1\n"


def test_accumulating_into_a_grad_of_another_shape() -> None:
    source = ("import torch\nx = torch.ones(2, 3, requires_grad=True)\n(x * 2).sum().backward()\n"
              "with torch.no_grad():\n    x.unsqueeze_(0)\n"
              "try:\n    (x * 1).sum().backward()\nexcept RuntimeError as ex:\n    print(ex)\n"
              "with torch.no_grad():\n    x.squeeze_()\n    x.t_()\n(x * 1).sum().backward()\n")
    out, err = run(source)
    assert out == "output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]\n"
    assert err.splitlines()[0] == ("t.ag:13:1: RuntimeError: The size of tensor a (3) must match the size of tensor b "
                                   "(2) at non-singleton dimension 1")


def test_int_of_a_nan_or_infinite_tensor_is_pythons_error() -> None:
    # (the CI fuzz run's REPL index 153: '%d' % tensor(nan) goes through Tensor.__int__)
    out, err = run(caught("'%d' % torch.tensor(float('nan'))", "int(torch.tensor(float('inf')))",
                          "int(torch.tensor(-2.5))"))
    assert err == ""
    assert out == ("ValueError cannot convert float NaN to integer\n"
                   "OverflowError cannot convert float infinity to integer\n-2\n")


def test_python_level_torch_code_fails_with_pytorchs_python_errors() -> None:
    # (the second long run, seed 14: mutants 7207, 28000, 31914, 54486, 55173, 70502, 84708, 87561)
    setup = ("o = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)\n"
             "s = lr_scheduler.ExponentialLR(o, 0.5)\n")
    out, err = run(caught("nn.init.trunc_normal_(torch.empty(6), mean=0.0, std='a', a=-0.1, b=0.1)",
                          "nn.Conv1d(3, 2, 'a', padding='same')", "torch.no_grad()(5)()",
                          "nn.ParameterDict({1: nn.Parameter(torch.ones(1)), 'a': nn.Parameter(torch.ones(1))})",
                          "o.step(dim=1)", setup=setup)
                   + "o.param_groups[0][1] = 2\ntry:\n    print(o)\nexcept TypeError as ex:\n    print(ex)\n"
                   + "o.param_groups[0]['lr'] = [0.1]\ntry:\n    s.step()\nexcept TypeError as ex:\n    print(ex)\n")
    assert out == ("TypeError unsupported operand type(s) for -: 'float' and 'str'\n"
                   "TypeError unsupported operand type(s) for -: 'str' and 'int'\n"
                   "TypeError 'int' object is not callable\n"
                   "TypeError '<' not supported between instances of 'str' and 'int'\n"
                   "TypeError SGD.step() got an unexpected keyword argument 'dim'\n"
                   "'<' not supported between instances of 'int' and 'str'\n"
                   "can't multiply sequence by non-int of type 'float'\n")


def test_a_jacobian_past_the_memory_budget_is_refused_before_it_is_built() -> None:
    # (mutant 61688: jacfwd over a million-element input took a column at a time, without end)
    out, err = run(caught("torch.func.jacfwd(lambda t: t * 2)(torch.ones(10 ** 6))",
                          "torch.func.jacrev(lambda t: t * 2)(torch.ones(10 ** 6))"))
    assert out.count("MemoryError gradcli refuses to build a Jacobian of 1000000000000 elements (3.6 TB)") == 2


def test_recording_a_graph_past_the_memory_budget_is_refused() -> None:
    # (the third long run: the million-node bench graph built in a REPL under a 256 MB budget)
    previous = budget.max_memory()
    budget.set_max_memory(budget.resident_memory() + 32 * 2**20)
    try:
        out, err = run("import torch\nx = torch.tensor(0.5, requires_grad=True)\ny = x\n"
                       "for step in range(1000000):\n    y = y + x\n")
    finally:
        budget.set_max_memory(previous)
    assert "MemoryError: gradcli refuses to record more of the autograd graph: the memory limit is" in err
