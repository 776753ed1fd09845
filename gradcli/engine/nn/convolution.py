"""``F.conv1d``, ``F.conv2d``, ``torch.convolution``: one op, ``convolution`` (``ConvolutionBackward0``).

``conv1d``/``conv2d`` are PyTorch's ``at::conv1d``/``at::conv2d``: an unbatched
input is unsqueezed first and the output squeezed back (``UnsqueezeBackward0``,
``SqueezeBackward1``); ``padding='same'`` pads symmetrically in the op, and an
even kernel pads the extra row or column with ``constant_pad_nd`` first
(``ConstantPadNdBackward0``).  The checks and their messages are
``at::_convolution``'s, in its order.

The gradients of the input and of the weight are ops too, each bilinear in its
two tensor arguments, so their own gradients are convolutions and each other
(double backward to any order).
"""

from __future__ import annotations

from typing import Any

from ..autograd.formulas import d
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser
from ..errors import TorchNotImplementedError, TorchRuntimeError, TorchValueError
from ..shape_rules import list_str
from ..tensor import Tensor
from ..warnings import warn_once

CATALOG = Catalog()
defop = CATALOG.defop


def _kernels() -> Any:
    from . import conv_kernels  # (loaded on first use: start-up stays lean)
    return conv_kernels


_INT64 = 1 << 63


def check_int64(*values: Any) -> None:
    """PyTorch's argument parser reads an int or int[] as int64 (``Overflow when unpacking long long``)."""
    for value in values:
        for v in (value,) if isinstance(value, int) else (value or ()):
            if not -_INT64 <= v < _INT64:
                raise TorchValueError("Overflow when unpacking long long")


def expand(value: Any, name: str, dim: int) -> tuple[int, ...]:
    """PyTorch's ``expand_param_if_needed``: one value for every spatial dim, or exactly ``dim``."""
    values = (value,) if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise TorchRuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match the convolution "
            f"dimensions, but got {name}={list_str(values)}")
    return values


class Params:
    """A convolution's parameters expanded to its spatial dims (``ConvParams``)."""

    def __init__(self, weight: Tensor, b: dict) -> None:
        dim = weight.ndim - 2
        if dim <= 0:
            raise TorchRuntimeError("weight should have at least three dimensions")
        if b["groups"] <= 0:
            raise TorchRuntimeError("non-positive groups is not supported")
        self.dim = dim
        self.stride = expand(b["stride"], "stride", dim)
        self.padding = expand(b["padding"], "padding", dim)
        self.dilation = expand(b["dilation"], "dilation", dim)
        self.output_padding = expand(b.get("output_padding", 0), "output_padding", dim)
        self.groups = b["groups"]

    def planar(self) -> tuple:
        """(stride, padding, dilation) as two spatial dims (a 1-d convolution has a height of 1)."""
        if self.dim == 1:
            return (1,) + self.stride, (0,) + self.padding, (1,) + self.dilation
        return self.stride, self.padding, self.dilation


def _check_shape(x: Tensor, w: Tensor, bias: Tensor | None, p: Params, transposed: bool) -> None:
    """``check_shape_forward``: PyTorch's checks in PyTorch's order."""
    if any(v < 0 for v in p.padding):
        raise TorchRuntimeError("negative padding is not supported")
    if any(v < 0 for v in p.output_padding):
        raise TorchRuntimeError("negative output_padding is not supported")
    if any(v <= 0 for v in p.stride):
        raise TorchRuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in p.dilation):
        raise TorchRuntimeError("dilation should be greater than zero")
    ws = tuple(w.shape)
    if w.ndim != x.ndim:
        raise TorchRuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight {list_str(ws)}, but got "
            f"{x.ndim}-dimensional input of size {list_str(x.shape)} instead")
    g = p.groups
    if ws[0] < g:
        raise TorchRuntimeError(f"Given groups={g}, expected weight to be at least {g} at dimension 0, but got "
                                f"weight of size {list_str(ws)} instead")
    if ws[0] % g != 0:
        raise TorchRuntimeError(f"Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got "
                                f"weight of size [{list_str(ws)}] instead")
    if transposed:
        if x.shape[1] != ws[0]:
            raise TorchRuntimeError(f"Given transposed=1, weight of size {list_str(ws)}, expected input"
                                    f"{list_str(x.shape)} to have {ws[0]} channels, but got {x.shape[1]} channels "
                                    "instead")
        raise TorchNotImplementedError("gradcli does not support transposed convolutions yet")
    if x.shape[1] != ws[1] * g:
        raise TorchRuntimeError(f"Given groups={g}, weight of size {list_str(ws)}, expected input{list_str(x.shape)} "
                                f"to have {ws[1] * g} channels, but got {x.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != ws[0]):
        raise TorchRuntimeError(f"Given weight of size {list_str(ws)}, expected bias to be 1-dimensional with "
                                f"{ws[0]} elements, but got bias of size {list_str(bias.shape)} instead")
    sizes = [x.shape[i] + 2 * p.padding[i - 2] for i in range(2, x.ndim)]
    kernel = [p.dilation[i - 2] * (ws[i] - 1) + 1 for i in range(2, x.ndim)]
    if any(s < k for s, k in zip(sizes, kernel)):
        raise TorchRuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, sizes))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size")


def _check_types(x: Tensor, w: Tensor, bias: Tensor | None) -> None:
    if x._dtype is not w._dtype:
        if x._dtype.name == "float32":  # (oneDNN's check; the other dtypes reach the slow kernel's)
            raise TorchRuntimeError(
                f"Input type (torch.{x._dtype.legacy_name}Tensor) and weight type (torch.{w._dtype.legacy_name}Tensor) "
                "should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise TorchRuntimeError(f"expected scalar type {x._dtype.legacy_name} but found {w._dtype.legacy_name}")
    if bias is not None and bias._dtype is not x._dtype:
        raise TorchRuntimeError(f"expected scalar type {x._dtype.legacy_name} but found {bias._dtype.legacy_name}")
    if x._dtype.name == "bool":
        raise TorchNotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")


def _as_planar(a: Any, dim: int) -> Any:
    return a.reshape(a.shape[:2] + (1,) + a.shape[2:]) if dim == 1 else a


def _forward(b: dict) -> Any:
    x, w, bias = b["self"], b["weight"], b["bias"]
    check_int64(b["stride"], b["padding"], b["dilation"], b["output_padding"], b["groups"])
    p = Params(w, b)
    _check_shape(x, w, bias, p, b["transposed"])
    if any(v == 0 for v in p.dilation):
        raise TorchRuntimeError("non-positive dilation is not supported")
    _check_types(x, w, bias)
    if p.dim > 2:
        raise TorchNotImplementedError(f"gradcli does not support {p.dim}-d convolutions yet")
    stride, padding, dilation = p.planar()
    out = _kernels().forward(_as_planar(x._data, p.dim), _as_planar(w._data, p.dim),
                             None if bias is None else bias._data, stride, padding, dilation, p.groups)
    return out.reshape(out.shape[:2] + out.shape[3:]) if p.dim == 1 else _kernels().like_layout(x._data, out)


# -- the gradients, ops of their own ----------------------------------------------------------------

# Both take PyTorch's convolution_backward arguments (grad_output, input, weight), so their nodes have its
# edges; each reads one tensor's values and the other's shape, and is linear in the pair it reads.
_GRAD_SIG = ("(Tensor grad_output, Tensor input, Tensor weight, int[1] stride, int[1] padding, int[1] dilation, "
             "int groups)")


def _unplanar(out: Any, dim: int) -> Any:
    return out.reshape(out.shape[:2] + out.shape[3:]) if dim == 1 else out


def _input_grad_forward(b: dict) -> Any:
    g, x, w = b["grad_output"]._data, b["self"], b["weight"]._data
    dim = w.ndim - 2
    size = tuple(x.shape[2:])
    out = _kernels().input_grad(_as_planar(g, dim), _as_planar(w, dim), ((1,) + size) if dim == 1 else size,
                                *_planar_of(b, dim), b["groups"])
    return _unplanar(out, dim)


def _weight_grad_forward(b: dict) -> Any:
    g, x, w = b["grad_output"]._data, b["self"]._data, b["weight"]
    dim = x.ndim - 2
    size = tuple(w.shape[2:])
    out = _kernels().weight_grad(_as_planar(g, dim), _as_planar(x, dim), ((1,) + size) if dim == 1 else size,
                                 *_planar_of(b, dim), b["groups"])
    return _unplanar(out, dim)


def _planar_of(b: dict, dim: int) -> tuple:
    stride, padding, dilation = (expand(b[k], k, dim) for k in ("stride", "padding", "dilation"))
    if dim == 1:
        return (1,) + stride, (0,) + padding, (1,) + dilation
    return stride, padding, dilation


def _params(s: Any) -> dict:
    return {"stride": s.stride, "padding": s.padding, "dilation": s.dilation, "groups": s.groups}


def _conv(x: Tensor, w: Tensor, s: Any) -> Tensor:
    return run(CONVOLUTION, {"self": x, "weight": w, "bias": None, **_params(s), "transposed": False,
                             "output_padding": (0,), "groups": s.groups})


def input_grad(g: Tensor, x: Tensor, w: Tensor, s: Any) -> Tensor:
    """The gradient of the input (``x`` gives only its shape)."""
    return run(INPUT_GRAD, {"grad_output": g, "self": x, "weight": w, **_params(s)})


def weight_grad(g: Tensor, x: Tensor, w: Tensor, s: Any) -> Tensor:
    """The gradient of the weight (``w`` gives only its shape)."""
    return run(WEIGHT_GRAD, {"grad_output": g, "self": x, "weight": w, **_params(s)})


def _none(gg: Tensor, s: Any) -> None:
    return None  # (an undefined gradient: PyTorch's edge is there, nothing flows along it)


INPUT_GRAD = defop(
    "_convolution_input_grad", "_convolution_input_grad" + _GRAD_SIG, _input_grad_forward,
    node="ConvolutionBackwardBackward0", inputs=("grad_output", "self", "weight"), function=False, method=False,
    derivs={"grad_output": d("weight", rule="convolution(grad, weight)")(lambda gg, s: _conv(gg, s.weight, s)),
            "self": d(rule="undefined: the input's gradient does not depend on the input")(_none),
            "weight": d("grad_output", "weight", rule="the weight's gradient of convolution(grad, grad_output)")(
                lambda gg, s: weight_grad(s.grad_output, gg, s.weight, s))})

WEIGHT_GRAD = defop(
    "_convolution_weight_grad", "_convolution_weight_grad" + _GRAD_SIG, _weight_grad_forward,
    node="ConvolutionBackwardBackward0", inputs=("grad_output", "self", "weight"), function=False, method=False,
    derivs={"grad_output": d("self", rule="convolution(input, grad)")(lambda gg, s: _conv(s.self, gg, s)),
            "self": d("grad_output", "self", rule="the input's gradient of convolution(grad, grad_output)")(
                lambda gg, s: input_grad(s.grad_output, s.self, gg, s)),
            "weight": d(rule="undefined: the weight's gradient does not depend on the weight")(_none)})


def _bias_grad(g: Tensor, s: Any) -> Tensor:
    return g.sum((0,) + tuple(range(2, g.ndim)))


CONVOLUTION = defop(
    "convolution", "convolution(Tensor input, Tensor weight, Tensor? bias, int[1] stride, int[1] padding, "
    "int[1] dilation, bool transposed, int[1] output_padding, int groups)", _forward,
    node="ConvolutionBackward0", inputs=("self", "weight", "bias"), method=False, vmap="convolution",
    exposes=("input", "stride", "padding", "dilation", "transposed", "output_padding", "groups"),
    # (one derivatives.yaml line for all three reads input and weight: PyTorch saves both always)
    derivs={"self": d("self", "weight", rule="the weight slid back over grad (a transposed convolution)")(
                lambda g, s: input_grad(g, s.self, s.weight, s)),
            "weight": d("self", "weight", rule="grad correlated with the input windows, summed over the batch")(
                lambda g, s: weight_grad(g, s.self, s.weight, s)),
            "bias": d("self", "weight", rule="sum(grad) over every dim but the channels")(_bias_grad)})


def convolution(x: Tensor, w: Tensor, bias: Tensor | None, stride: tuple, padding: tuple, dilation: tuple,
                groups: int) -> Tensor:
    return run(CONVOLUTION, {"self": x, "weight": w, "bias": bias, "stride": stride, "padding": padding,
                             "dilation": dilation, "transposed": False, "output_padding": (0,) * len(stride),
                             "groups": groups})


# -- conv1d / conv2d ------------------------------------------------------------------------------

def _signatures(name: str) -> LazyParser:
    head = f"{name}(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
    return LazyParser(head + "int[1] padding=0, int[1] dilation=1, int groups=1)",
                      head + "str padding=\"valid\", int[1] dilation=1, int groups=1)")


def _spatial(value: Any, n: int) -> tuple[int, ...]:
    # An int given for PyTorch's int[n] is n copies of it; a tuple stays as given.
    return (value,) * n if isinstance(value, int) else tuple(value)


def _batchify(x: Tensor, n: int, name: str) -> tuple[Tensor, bool]:
    batched = x.ndim == n + 2
    if x.ndim != n + 1 and not batched:
        raise TorchRuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got "
                                f"input of size: {list_str(x.shape)}")
    return (x if batched else x.unsqueeze(0)), batched


def _same(x: Tensor, w: Tensor, bias: Tensor | None, stride: tuple, dilation: tuple, groups: int) -> Tensor:
    """``convolution_same``: the symmetric part of the padding in the op, the rest by ``constant_pad_nd``."""
    k = w.ndim
    if k <= 2:
        raise TorchRuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise TorchRuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != x.ndim:
        raise TorchRuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight{list_str(w.shape)}, but "
                                f"got {x.ndim}-dimensional input of size {list_str(x.shape)} instead")
    for name, value in (("stride", stride), ("dilation", dilation)):
        if len(value) not in (1, dim):
            raise TorchRuntimeError(f"{name} cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise TorchRuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dim):
        dil = dilation[0] if len(dilation) == 1 else dilation[i]
        total = dil * (w.shape[i + 2] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left == right:
        return convolution(x, w, bias, stride, tuple(left), dilation, groups)
    warn_once("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
              "input be created (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:"
              "1101.)")
    pad = [0] * (2 * dim)
    for i in range(dim):
        pad[2 * (dim - 1 - i) + 1] = right[i] - left[i]
    from .padding import constant_pad_nd
    return run(CONVOLUTION, {"self": constant_pad_nd(x, pad, 0), "weight": w, "bias": bias, "stride": stride,
                             "padding": tuple(left), "dilation": dilation, "transposed": False,
                             "output_padding": (0,) * dim, "groups": groups})


def _conv_nd(parser: LazyParser, name: str, n: int, args: tuple, kwargs: dict) -> Tensor:
    _, b = parser.parse(args, kwargs)
    x, w, bias = b["input"], b["weight"], b["bias"]
    check_int64(b["stride"], None if isinstance(b["padding"], str) else b["padding"], b["dilation"], b["groups"])
    if bias is not None and bias._dtype is not x._dtype:
        raise TorchRuntimeError(f"Input type ({x._dtype.c_name}) and bias type ({bias._dtype.c_name}) should be the "
                                "same")
    x, batched = _batchify(x, n, name)
    stride, dilation, groups, padding = _spatial(b["stride"], n), _spatial(b["dilation"], n), b["groups"], b["padding"]
    if isinstance(padding, str):
        if padding == "same":
            out = _same(x, w, bias, stride, dilation, groups)
        elif padding == "valid":
            out = run(CONVOLUTION, {"self": x, "weight": w, "bias": bias, "stride": stride, "padding": (0,),
                                    "dilation": dilation, "transposed": False, "output_padding": (0,),
                                    "groups": groups})
        else:
            raise TorchRuntimeError(f"Invalid padding string: '{padding}'")
    else:
        out = convolution(x, w, bias, stride, _spatial(padding, n), dilation, groups)
    return out if batched else out.squeeze(0)


_CONV1D = _signatures("conv1d")
_CONV2D = _signatures("conv2d")


@signed(_CONV1D)
def conv1d(*args: Any, **kwargs: Any) -> Tensor:
    """``F.conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``."""
    return _conv_nd(_CONV1D, "conv1d", 1, args, kwargs)


@signed(_CONV2D)
def conv2d(*args: Any, **kwargs: Any) -> Tensor:
    """``F.conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``."""
    return _conv_nd(_CONV2D, "conv2d", 2, args, kwargs)


CATALOG.register(conv1d, "conv1d", torch=True, namespaces=("nn.functional",))
CATALOG.register(conv2d, "conv2d", torch=True, namespaces=("nn.functional",))
