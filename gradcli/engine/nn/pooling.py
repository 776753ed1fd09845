"""``F.max_pool2d``, ``torch.max_pool2d``, ``F.max_pool2d_with_indices`` and ``F.avg_pool2d``.

Two ops, ``max_pool2d_with_indices`` (``MaxPool2DWithIndicesBackward0``) and
``avg_pool2d`` (``AvgPool2DBackward0``), whose checks and messages are their
ATen meta functions' (``pooling_output_shape``, ``pool2d_shape_check``).  Their
backward kernels are ops too (``...BackwardBackward0``), whose own gradient is
the forward's linear part again, so a second derivative exists.  Values are
bit for bit PyTorch's (``pool_kernels.py``).
"""

from __future__ import annotations

from typing import Any

from ..dispatch.op import LINEAR
from ..autograd.formulas import d
from ..dispatch.forms import function_form
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ..shape_rules import list_str
from ..tensor import Tensor
from .convolution import check_int64

CATALOG = Catalog()
defop = CATALOG.defop


def _kernels() -> Any:
    from . import pool_kernels  # (loaded on first use: start-up stays lean)
    return pool_kernels


def _layout(x: Any, out: Any) -> Any:
    from .conv_kernels import like_layout
    return like_layout(x, out)


def _pair(value: Any, what: str, name: str, may_be_empty: bool = False) -> tuple[int, int] | None:
    values = (value,) if isinstance(value, int) else tuple(value or ())
    if may_be_empty and not values:
        return None
    if len(values) not in (1, 2):
        raise TorchRuntimeError(f"{name}: {what}")
    for v in values:  # (the meta functions' safe_downcast<int>)
        if not -(1 << 31) <= v < (1 << 31):
            raise TorchRuntimeError("value cannot be converted to type int without overflow")
    return (values[0], values[-1])


def _as_pairs(b: dict) -> None:
    """PyTorch's int[2]: one int given is two copies of it (``_saved_kernel_size`` is ``(2, 2)``)."""
    check_int64(*(b.get(k) for k in ("kernel_size", "stride", "padding", "dilation", "divisor_override")))
    for key in ("kernel_size", "stride", "padding", "dilation"):
        if isinstance(b.get(key), int):
            b[key] = (b[key], b[key])
        elif key == "stride" and b.get(key) is None:
            b[key] = ()


def _c_half(value: int) -> int:
    return value // 2 if value >= 0 else -(-value // 2)  # (C's division truncates towards zero)


def _out_size(size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    """``pooling_output_shape`` with its checks."""
    if stride == 0:
        raise TorchRuntimeError("stride should not be zero")
    if pad < 0:
        raise TorchRuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _c_half((kernel - 1) * dilation + 1):
        raise TorchRuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                                f"kernel_size={kernel} and dilation={dilation}")
    return _kernels().output_size(size, kernel, pad, stride, dilation, ceil_mode)


class _Geometry:
    """One pooling call's sizes, checked as the meta functions check them."""

    def __init__(self, name: str, b: dict, dilation: Any) -> None:
        self.kernel = _pair(b["kernel_size"], "kernel_size must either be a single int, or a tuple of two ints", name)
        stride = _pair(b["stride"], "stride must either be omitted, a single int, or a tuple of two ints", name,
                       may_be_empty=True)
        self.stride = stride or self.kernel
        self.pad = _pair(b["padding"], "padding must either be a single int, or a tuple of two ints", name)
        self.dilation = _pair(dilation, "dilation must be either a single int, or a tuple of two ints", name)

    def check(self, x: Tensor, ceil_mode: bool) -> None:
        kernel, stride, pad, dilation = self.kernel, self.stride, self.pad, self.dilation
        planes, height, width = x.size(-3), x.size(-2), x.size(-1)
        out_h = _out_size(height, kernel[0], pad[0], stride[0], dilation[0], ceil_mode)
        out_w = _out_size(width, kernel[1], pad[1], stride[1], dilation[1], ceil_mode)
        if kernel[0] <= 0 or kernel[1] <= 0:
            raise TorchRuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
        if stride[0] <= 0 or stride[1] <= 0:
            raise TorchRuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
        if dilation[0] <= 0 or dilation[1] <= 0:
            raise TorchRuntimeError(
                f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: {dilation[1]}")
        s = x.shape
        valid = s[1] != 0 and s[2] != 0
        if not ((x.ndim == 3 and s[0] != 0 and valid) or (x.ndim == 4 and valid and s[3] != 0)):
            raise TorchRuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                                    f"but got:{list_str(s)}")
        if _c_half(kernel[1]) < pad[1] or _c_half(kernel[0]) < pad[0]:
            raise TorchRuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = "
                                    f"{pad[1]}, padH = {pad[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
        if out_w < 1 or out_h < 1:
            raise TorchRuntimeError(f"Given input size: ({planes}x{height}x{width}). Calculated output size: "
                                    f"({planes}x{out_h}x{out_w}). Output size is too small")
        self.out = (out_h, out_w)
        self.in_size = (height, width)


def _zeros_of_self(gg: Tensor, s: Any) -> Tensor:
    """The backward kernels' derivative for ``self``: zeros (derivatives.yaml's ``zeros_like(self)``)."""
    import numpy as np
    return Tensor._make(np.zeros(s.self_sym_sizes, dtype=gg._data.dtype))


def _planes(a: Any) -> Any:
    planes = 1
    for size in a.shape[:-2]:
        planes *= size
    return a.reshape((planes,) + a.shape[-2:])  # (not -1: a batch of 0 is allowed)


# -- max pooling ----------------------------------------------------------------------------------

def _max_forward(b: dict) -> tuple:
    x = b["self"]
    geo = _Geometry("max_pool2d", b, b["dilation"])
    if x.ndim not in (3, 4):
        raise TorchRuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    geo.check(x, b["ceil_mode"])
    if x._dtype.name == "bool":
        raise TorchNotImplementedError("\"max_pool2d\" not implemented for 'Bool'")
    values, indices = _kernels().max_pool(_planes(x._data), geo.kernel, geo.stride, geo.pad, geo.dilation, geo.out)
    shape = tuple(x.shape[:-2]) + geo.out
    return _layout(x._data, values.reshape(shape)), _layout(x._data, indices.reshape(shape))


def _max_backward_forward(b: dict) -> Any:
    g, x, indices = b["grad_output"], b["self"], b["indices"]
    out = _kernels().max_pool_backward(_planes(g._data), _planes(indices._data), tuple(x.shape[-2:]))
    return out.reshape(x.shape)


def _max_double_backward(gg: Tensor, s: Any) -> Tensor:
    """The gradient's gradient: ``gg`` picked at each output's index (``max_pool_double_backward``)."""
    indices = s.indices
    picked = gg.flatten(-2).gather(-1, indices.flatten(-2))
    return picked.view(tuple(indices.shape))


_POOL_PARAMS = "int[1] kernel_size, int[1]? stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False"

MAX_POOL2D_BACKWARD = defop(
    "max_pool2d_with_indices_backward",
    f"max_pool2d_with_indices_backward(Tensor grad_output, Tensor input, {_POOL_PARAMS}, Tensor indices)",
    _max_backward_forward, jvp=LINEAR, node="MaxPool2DWithIndicesBackwardBackward0", inputs=("grad_output", "self"),
    function=False, method=False,
    derivs={"grad_output": d("indices", rule="grad at each output's index")(_max_double_backward),
            "self": d(rule="0")(_zeros_of_self)})


def _max_grad(g: Tensor, s: Any) -> Tensor:
    return run(MAX_POOL2D_BACKWARD, {"grad_output": g[0], "self": s.self, "kernel_size": s.kernel_size,
                                     "stride": s.stride, "padding": s.padding, "dilation": s.dilation,
                                     "ceil_mode": s.ceil_mode, "indices": s.result1})


MAX_POOL2D_WITH_INDICES = defop(
    "max_pool2d_with_indices", f"max_pool2d_with_indices(Tensor input, {_POOL_PARAMS})", _max_forward,
    node="MaxPool2DWithIndicesBackward0", method=False, function=False, prepare=_as_pairs, vmap="pooling2d",
    exposes=("kernel_size", "stride", "padding", "dilation", "ceil_mode"),
    derivs={"self": d("self", "result1", rule="zeros of self's shape, grad added at each window's largest")(
        _max_grad)})

_with_indices = function_form(MAX_POOL2D_WITH_INDICES)


_TORCH_MAX_POOL = LazyParser(f"max_pool2d(Tensor input, {_POOL_PARAMS})")


@signed(_TORCH_MAX_POOL)
def torch_max_pool2d(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.max_pool2d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)``."""
    _, b = _TORCH_MAX_POOL.parse(args, kwargs)
    _as_pairs(b)
    return run(MAX_POOL2D_WITH_INDICES, {"self": b.pop("input"), **b})[0]


def max_pool2d_with_indices(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> tuple:
    """``F.max_pool2d_with_indices``: (values, indices of each largest in its H*W plane)."""
    return tuple(_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode))


def _max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
                ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return torch_max_pool2d(input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode)


def max_pool2d(*args: Any, **kwargs: Any) -> Any:
    """``F.max_pool2d``: the values, or (values, indices) with ``return_indices=True``; PyTorch's
    ``boolean_dispatch`` picks the function by that flag (so Python's errors name the one picked)."""
    if "return_indices" in kwargs:
        flag = kwargs["return_indices"]
    else:
        flag = args[6] if len(args) > 6 else False
    try:
        return (max_pool2d_with_indices if flag else _max_pool2d)(*args, **kwargs)
    except TypeError as error:
        if error.__traceback__ is not None and error.__traceback__.tb_next is None:
            # the arguments did not bind: the script's mistake, in Python's words
            raise TorchTypeError(str(error)) from None
        raise


# -- average pooling ------------------------------------------------------------------------------

def _avg_geometry(x: Tensor, b: dict) -> _Geometry:
    geo = _Geometry("avg_pool2d", b, 1)
    if b["divisor_override"] is not None and b["divisor_override"] == 0:
        raise TorchRuntimeError("divisor must be not zero")
    geo.check(x, b["ceil_mode"])
    if x._dtype.name not in ("float32", "float64", "int64"):
        raise TorchNotImplementedError(f"\"avg_pool2d\" not implemented for '{x._dtype.legacy_name}'")
    geo.divisors = _kernels().avg_divisors(geo.in_size, geo.kernel, geo.stride, geo.pad, geo.out,  # type: ignore
                                           b["count_include_pad"], b["divisor_override"])
    return geo


def _avg_forward(b: dict) -> Any:
    x = b["self"]
    geo = _avg_geometry(x, b)
    out = _kernels().avg_pool(_planes(x._data), geo.kernel, geo.stride, geo.pad, geo.out, geo.divisors)  # type: ignore
    return _layout(x._data, out.reshape(tuple(x.shape[:-2]) + geo.out))


def _avg_backward_forward(b: dict) -> Any:
    g, x = b["grad_output"], b["self"]
    geo = _avg_geometry(x, b)
    out = _kernels().avg_pool_backward(_planes(g._data), geo.in_size, geo.kernel, geo.stride, geo.pad,
                                       geo.divisors)  # type: ignore
    return out.reshape(x.shape)


_AVG_PARAMS = ("int[1] kernel_size, int[1]? stride=[], int[1] padding=0, bool ceil_mode=False, "
               "bool count_include_pad=True, int? divisor_override=None")
_AVG_KEYS = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")


def _avg_again(gg: Tensor, s: Any) -> Tensor:
    return run(AVG_POOL2D, {"self": gg, **{k: getattr(s, k) for k in _AVG_KEYS}})


AVG_POOL2D_BACKWARD = defop(
    "avg_pool2d_backward", f"avg_pool2d_backward(Tensor grad_output, Tensor input, {_AVG_PARAMS})",
    _avg_backward_forward, jvp=LINEAR, node="AvgPool2DBackwardBackward0", inputs=("grad_output", "self"), function=False,
    method=False, derivs={"grad_output": d(rule="avg_pool2d(grad)")(_avg_again), "self": d(rule="0")(_zeros_of_self)})


def _avg_grad(g: Tensor, s: Any) -> Tensor:
    return run(AVG_POOL2D_BACKWARD, {"grad_output": g, "self": s.self, **{k: getattr(s, k) for k in _AVG_KEYS}})


AVG_POOL2D = defop(
    "avg_pool2d", f"avg_pool2d(Tensor input, {_AVG_PARAMS})", _avg_forward, jvp=LINEAR, node="AvgPool2DBackward0",
    vmap="pooling2d", method=False, function=False, exposes=_AVG_KEYS, prepare=_as_pairs,
    derivs={"self": d("self", rule="each output's grad shared evenly over its window")(_avg_grad)})


CATALOG.register(torch_max_pool2d, "max_pool2d", torch=True)
CATALOG.register(max_pool2d, "max_pool2d", namespaces=("nn.functional",))
CATALOG.register(max_pool2d_with_indices, "max_pool2d_with_indices", namespaces=("nn.functional",))
CATALOG.register(function_form(AVG_POOL2D), "avg_pool2d", namespaces=("nn.functional",))
