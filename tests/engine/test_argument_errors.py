"""The argument checks of issue 14's "Internal errors": each call fails with the error PyTorch
2.13 (or Python) raises for it, word for word (checked against torch), as a Torch* error of the
engine -- raised by validation before NumPy sees the values."""

from __future__ import annotations

import math
from typing import Any, Callable

import pytest

from gradcli.engine import api
from gradcli.engine.errors import TorchError

T = api.TORCH
F = api.SUBMODULES["nn.functional"]
FUNCTIONAL = api.SUBMODULES["autograd.functional"]
AUTOGRAD = api.SUBMODULES["autograd"]


@pytest.fixture(autouse=True)
def _fresh() -> Any:
    api.reset_global_state(0)
    yield
    api.reset_global_state(0)


def _deep(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


def x() -> Any:
    return T["ones"](2, 3)


def leaf() -> Any:
    return T["ones"](2, dtype=T["float64"], requires_grad=True)


CASES: list[tuple[str, Callable[[], Any], type, str]] = [
    # ints outside int64, as PyTorch's argument parser unpacks them
    ("full 2**63", lambda: T["full"]((2,), 2 ** 63), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    ("full 2**64", lambda: T["full"]((2,), 2 ** 64), OverflowError, "int too big to convert"),
    ("full -2**63-1", lambda: T["full"]((2,), -2 ** 63 - 1), OverflowError, "can't convert negative int to unsigned"),
    ("full int32", lambda: T["full"]((2,), 2 ** 40, dtype=T["int32"]), RuntimeError,
     "value cannot be converted to type int without overflow"),
    ("full float32", lambda: T["full"]((2,), 3.5e38), RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("fill_ uint8", lambda: T["zeros"](2, dtype=T["uint8"]).fill_(-300), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    ("ones 2**63", lambda: T["ones"](2 ** 63), TypeError,
     "ones(): argument 'size' failed to unpack the object at pos 1 with error \"Overflow when unpacking long long\""),
    ("view pos 2", lambda: x().view(2, 2 ** 63), TypeError,
     "view(): argument 'size' failed to unpack the object at pos 2 with error \"Overflow when unpacking long long\""),
    ("sum dim", lambda: x().sum(2 ** 63), ValueError, "Overflow when unpacking long long"),
    ("sum dim after a cached call", lambda: (x().sum(0), x().sum(-2 ** 63 - 1)), ValueError,
     "Overflow when unpacking long long"),
    ("tril", lambda: T["tril"](x(), 2 ** 63), ValueError, "Overflow when unpacking long long"),
    ("size", lambda: x().size(2 ** 63), ValueError, "Overflow when unpacking long long"),
    # NaN and infinities where a range or an int is needed
    ("arange nan", lambda: T["arange"](math.nan), RuntimeError, "unsupported range: 0 -> nan"),
    ("arange inf", lambda: T["arange"](math.inf), RuntimeError, "unsupported range: 0 -> inf"),
    ("arange 1.5 -> -inf", lambda: T["arange"](1.5, -math.inf, -1), RuntimeError, "unsupported range: 1.5 -> -inf"),
    ("arange nan step", lambda: T["arange"](0, 1, math.nan), RuntimeError, "step must be nonzero"),
    ("arange 2**63", lambda: T["arange"](2 ** 63), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    ("manual_seed inf", lambda: T["manual_seed"](math.inf), OverflowError, "cannot convert float infinity to integer"),
    # nested data
    ("tensor 66 deep", lambda: T["tensor"](_deep(66)), NotImplementedError,
     "gradcli does not support tensors of more than 64 dimensions (got 66)"),
    ("tensor 129 deep", lambda: T["tensor"](_deep(129)), ValueError, "too many dimensions 'list'"),
    ("ones 65 dims", lambda: T["ones"]((1,) * 65), NotImplementedError,
     "gradcli does not support tensors of more than 64 dimensions (got 65)"),
    # wrong argument types reaching NumPy
    ("equal str", lambda: T["equal"](x(), "a"), TypeError, "equal(): argument 'other' (position 2) must be Tensor, not str"),
    ("allclose str", lambda: T["allclose"](x(), "a"), TypeError,
     "allclose(): argument 'other' (position 2) must be Tensor, not str"),
    ("equal missing", lambda: T["equal"](x()), TypeError, 'equal() missing 1 required positional arguments: "other"'),
    ("chunk dtype", lambda: x().chunk(T["float"]), TypeError,
     "chunk(): argument 'chunks' (position 1) must be int, not torch.dtype"),
    ("movedim str", lambda: x().movedim(0, "a"), TypeError,
     "movedim() received an invalid combination of arguments - got (int, str), but expected one of:\n"
     " * (int source, int destination)\n"
     "      didn't match because some of the arguments have invalid types: (int, !str!)\n"
     " * (tuple of ints source, tuple of ints destination)\n"
     "      didn't match because some of the arguments have invalid types: (!int!, !str!)\n"),
    ("take float index", lambda: T["take"](x(), T["tensor"]([0.5])), RuntimeError,
     "take(): Expected a long tensor for index, but got Float"),
    ("scatter bounds", lambda: T["scatter"](x(), 1, T["tensor"]([[5]]), 1.0), RuntimeError,
     "index 5 is out of bounds for dimension 1 with size 3"),
    ("index_add float index", lambda: x().index_add(0, T["tensor"]([0.5]), T["ones"](1, 3)), RuntimeError,
     "index_add_(): Expected dtype int32/int64 for index but got: Float"),
    ("masked_fill mask", lambda: T["masked_fill"](x(), 1, 2.0), TypeError,
     "masked_fill() received an invalid combination of arguments - got (Tensor, int, float), but expected one of:\n"
     " * (Tensor input, Tensor mask, Tensor value)\n"
     "      didn't match because some of the arguments have invalid types: (Tensor, !int!, !float!)\n"
     " * (Tensor input, Tensor mask, Number value)\n"
     "      didn't match because some of the arguments have invalid types: (Tensor, !int!, !float!)\n"),
    ("size tuple first", lambda: T["ones"](("a", 2)), TypeError,
     "ones(): argument 'size' (position 1) must be tuple of ints, but found element of type str at pos 0"),
    ("size tuple later", lambda: T["ones"]((2, "a")), TypeError,
     "ones(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\""),
    ("dim tuple by keyword after a cached call", lambda: (x().sum(dim=(1,)), x().logsumexp(dim=(1,)),
                                                          x().logsumexp(dim=(1.5,))),
     TypeError, "logsumexp(): argument 'dim' must be tuple of ints, not tuple"),
    ("to dtype", lambda: x().to(dtype="a"), TypeError,
     "to() received an invalid combination of arguments - got (dtype=str, ), but expected one of:\n"
     " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
     "torch.memory_format memory_format = None)\n"
     " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
     " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"),
    ("pad int", lambda: F["pad"](x(), 5), TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, not int"),
    ("norm str", lambda: T["norm"]("a"), AttributeError, "'str' object has no attribute 'layout'"),
    # methods called through the class with a wrong self
    ("Tensor.add(1, 2)", lambda: api.Tensor.add(1, 2), TypeError,
     "descriptor 'add' for 'torch._C.TensorBase' objects doesn't apply to a 'int' object"),
    ("Tensor.add()", lambda: api.Tensor.add(), TypeError, "unbound method TensorBase.add() needs an argument"),
    ("Tensor.size(None)", lambda: api.Tensor.size(None), TypeError,
     "descriptor 'size' for 'torch._C.TensorBase' objects doesn't apply to a 'NoneType' object"),
    ("Tensor.equal(dtype, x)", lambda: api.Tensor.equal(T["float"], x()), TypeError,
     "descriptor 'equal' for 'torch._C.TensorBase' objects doesn't apply to a 'torch.dtype' object"),
    ("Tensor.register_hook(1, f)", lambda: api.Tensor.register_hook(1, print), AttributeError,
     "'int' object has no attribute 'requires_grad'"),
    # callbacks and what they return
    ("jacobian(print, x)", lambda: FUNCTIONAL["jacobian"](lambda t: None, leaf()), TypeError,
     "The outputs of the user-provided function given to jacobian must be either a Tensor or a tuple of Tensors "
     "but the given outputs of the user-provided function has type <class 'NoneType'>."),
    ("jacobian inputs", lambda: FUNCTIONAL["jacobian"](lambda t: t, (leaf(), 1)), TypeError,
     "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the value at index 1 has "
     "type <class 'int'>."),
    ("vjp v size", lambda: FUNCTIONAL["vjp"](lambda t: t * 2, leaf(), T["ones"](3, dtype=T["float64"])),
     RuntimeError, "v has invalid size: should be torch.Size([2]) but got torch.Size([3])."),
    ("hvp not callable", lambda: FUNCTIONAL["hvp"](5, leaf(), leaf()), TypeError, "'int' object is not callable"),
    ("gradcheck(len)", lambda: AUTOGRAD["gradcheck"](len, (leaf(),)), AttributeError,
     "'int' object has no attribute 'requires_grad'"),
    ("gradcheck no grad", lambda: AUTOGRAD["gradcheck"](lambda t: t, (1,)), ValueError,
     "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."),
    ("gradgradcheck(len, 1)", lambda: AUTOGRAD["gradgradcheck"](len, 1), TypeError, "object of type 'int' has no len()"),
    ("grad input", lambda: AUTOGRAD["grad"]((leaf() * 2).sum(), (2, 3)), RuntimeError,
     "all inputs have to be Tensors or GradientEdges, but got int"),
    ("backward output", lambda: AUTOGRAD["backward"]([(leaf() * 2).sum(), 1.5]), AssertionError,
     "Expected output to be a torch.Tensor"),
]


@pytest.mark.parametrize("name, call, kind, message", CASES, ids=[c[0] for c in CASES])
def test_pytorch_error(name: str, call: Callable[[], Any], kind: type, message: str) -> None:
    with pytest.raises(TorchError) as info:
        call()
    assert isinstance(info.value, kind)
    assert str(info.value) == message


def _backward_with(register: Callable[[Any, Any], Any]) -> None:
    a = leaf()
    y = a * 2
    register(a, y)
    y.sum().backward()


@pytest.mark.parametrize("register, kind, message", [
    (lambda a, y: y.grad_fn.register_prehook(lambda g: 5), TypeError, "expected tuple, but hook returned 'int'"),
    (lambda a, y: y.grad_fn.register_prehook(lambda g: (5,)), TypeError, "expected Variable, but hook returned 'int'"),
    (lambda a, y: y.grad_fn.register_prehook(lambda g: (g[0], g[0])), RuntimeError,
     "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"),
    (lambda a, y: y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0])), RuntimeError,
     "can't replace a None gradient with a non-None value"),
    (lambda a, y: y.register_hook(lambda g: T["ones"](3, dtype=T["float64"])), RuntimeError,
     "hook '<lambda>' has changed the size of value"),
    (lambda a, y: y.register_hook(lambda g: T["ones"](2)), RuntimeError,
     "hook '<lambda>' has changed the type of value (was torch.DoubleTensor got torch.FloatTensor)"),
    (lambda a, y: y.register_hook(5), TypeError, "'int' object is not callable"),
], ids=["prehook int", "prehook (int,)", "prehook length", "hook None replaced", "tensor hook size",
        "tensor hook dtype", "hook not callable"])
def test_hook_results_checked(register: Callable, kind: type, message: str) -> None:
    with pytest.raises(TorchError) as info:
        _backward_with(register)
    assert isinstance(info.value, kind)
    assert str(info.value) == message


def test_hook_returning_none_in_a_place_drops_that_gradient() -> None:
    a = leaf()
    y = a * 2
    y.grad_fn.register_prehook(lambda g: (None,))
    y.sum().backward()
    assert a.grad is None


@pytest.mark.parametrize("options, kind, message", [
    ({"precision": 2.5}, ValueError, "Invalid format specifier '.2.5f' for object of type 'float'"),
    ({"linewidth": "a"}, TypeError, "unsupported operand type(s) for -: 'str' and 'int'"),
    ({"threshold": "3"}, TypeError, "'>' not supported between instances of 'int' and 'str'"),
])
def test_bad_print_options_fail_at_the_print_as_in_pytorch(options: dict, kind: type, message: str) -> None:
    # torch.set_printoptions keeps any value; the error comes at the next print, PyTorch's own
    T["set_printoptions"](**options)
    with pytest.raises(TorchError) as info:
        repr(T["ones"](2) / 3)
    assert isinstance(info.value, kind)
    assert str(info.value) == message


def test_bad_print_option_that_torch_can_print_with_still_prints() -> None:
    T["set_printoptions"](precision=2.5)
    assert repr(T["ones"](2)) == "tensor([1., 1.])"  # (whole numbers need no precision)


def test_values_that_fit_still_work() -> None:
    assert T["full"]((2,), -255, dtype=T["uint8"]).tolist() == [1, 1]
    assert T["full"]((2,), 2 ** 63, dtype=T["float32"]).tolist() == [2.0 ** 63, 2.0 ** 63]
    assert T["tensor"]([2 ** 63], dtype=T["float64"]).tolist() == [2.0 ** 63]
    assert T["arange"](0, 1, math.inf).tolist() == []  # (PyTorch: ceil(1 / inf) = 0 elements)
    assert x().movedim((0, 1), (1, 0)).shape == (3, 2)
    assert api.Tensor.add(x(), 1).tolist() == [[2.0] * 3] * 2
    assert T["scatter"](T["zeros"](3), 0, T["tensor"]([2, 0]), T["tensor"]([5.0, 6.0])).tolist() == [6.0, 0.0, 5.0]
