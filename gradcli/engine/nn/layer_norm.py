"""``F.layer_norm``, ``torch.layer_norm`` and ``torch.native_layer_norm`` (``NativeLayerNormBackward0``).

The forward and the gradients are PyTorch's CPU kernels (``layer_norm_kernel.py``).
With ``create_graph=True`` the gradient is composed of differentiable ops
instead, so that it can be differentiated again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..autograd.formulas import together
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchRuntimeError
from ..tensor import Tensor

CATALOG = Catalog()
defop = CATALOG.defop


def _shape_text(shape: Any) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check(x: Tensor, shape: tuple, weight: Tensor | None, bias: Tensor | None) -> None:
    """``_check_layer_norm_inputs``."""
    if len(shape) < 1:
        raise TorchRuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                                f"one element, but got normalized_shape = {_shape_text(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise TorchRuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                                    f"shape {_shape_text(t.shape)} and normalized_shape = {_shape_text(shape)}")
    if x.ndim < len(shape) or tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise TorchRuntimeError(
            f"Given normalized_shape={_shape_text(shape)}, expected input with shape "
            f"[*{''.join(', ' + str(s) for s in shape)}], but got input of size{_shape_text(x.shape)}")


def _rows(x: Tensor, shape: tuple) -> np.ndarray:
    n = math.prod(shape)
    return np.ascontiguousarray(x._data).reshape(-1, n) if n else x._data.reshape(-1, 0)


def _flat(t: Tensor | None, dtype: np.dtype) -> np.ndarray | None:
    return None if t is None else np.ascontiguousarray(t._data, dtype=dtype).reshape(-1)


def _forward(b: dict) -> tuple:
    x, shape, weight, bias = b["self"], tuple(b["normalized_shape"]), b["weight"], b["bias"]
    _check(x, shape, weight, bias)
    if not x._dtype.is_floating_point:
        raise TorchRuntimeError(f"\"LayerNormKernelImpl\" not implemented for '{x._dtype.legacy_name}'")
    from .layer_norm_kernel import layer_norm_forward  # (loaded on first use: start-up stays lean)
    rows = _rows(x, shape)
    y, mean, rstd = layer_norm_forward(rows, _flat(weight, rows.dtype), _flat(bias, rows.dtype), b["eps"])
    stat_shape = tuple(x.shape[:x.ndim - len(shape)]) + (1,) * len(shape)
    return y.reshape(x.shape), mean.reshape(stat_shape), rstd.reshape(stat_shape)


def _composite_grads(g: Tensor, s: Any) -> tuple:
    """The gradients as differentiable ops (for ``create_graph=True``)."""
    x, weight, nd = s.self, s.weight, len(s.normalized_shape)
    dims = tuple(range(x.ndim - nd, x.ndim))
    batch = tuple(range(x.ndim - nd))
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    rstd = ((centred * centred).mean(dims, keepdim=True) + s.eps).rsqrt()
    xhat = centred * rstd
    gxhat = g if weight is None else g * weight
    dx = rstd * (gxhat - gxhat.mean(dims, keepdim=True) - xhat * (gxhat * xhat).mean(dims, keepdim=True))
    dw = (g * xhat).sum(batch) if batch else g * xhat
    db = g.sum(batch) if batch else g
    return dx, dw, db


def _grads(g: list, s: Any) -> tuple:
    """(dx, dweight, dbias) of one backward call (autograd.formulas.together keeps them)."""
    gy = g[0]
    if grad_mode.is_grad_enabled():
        found = _composite_grads(gy, s)
    else:
        from .layer_norm_kernel import layer_norm_backward
        x, shape = s.self, tuple(s.normalized_shape)
        rows = _rows(x, shape)
        dy = np.ascontiguousarray(gy._data, dtype=rows.dtype).reshape(rows.shape)
        weight = _flat(s.weight, rows.dtype)
        dx, dw, db = layer_norm_backward(dy, rows, s.result1._data.reshape(-1), s.result2._data.reshape(-1), weight,
                                         (True, s.weight is not None, s.bias is not None))
        found = (Tensor._make(dx.reshape(x.shape), x._dtype),
                 None if dw is None else Tensor._make(dw.reshape(shape), x._dtype),
                 None if db is None else Tensor._make(db.reshape(shape), x._dtype))
    return found


_SAVED = ("self", "weight", "bias", "result1", "result2")
NATIVE_LAYER_NORM = defop(
    "native_layer_norm", "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps)", _forward, node="NativeLayerNormBackward0", inputs=("self", "weight", "bias"), function=False,
    vmap="unary",
    method=False, exposes=("normalized_shape",),
    derivs=together(("self", "weight", "bias"), _SAVED, _grads, rules=(
        "rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = grad * weight",
        "sum(grad * xhat) over the batch, xhat = (self - mean) * rstd",
        "sum(grad) over the batch")))

def native_layer_norm(*args: Any, **kwargs: Any) -> tuple:
    """``torch.native_layer_norm``: (output, mean, rstd); only the output is differentiable."""
    return statistics_not_differentiable(NATIVE_LAYER_NORM(*args, **kwargs))


def statistics_not_differentiable(outputs: tuple) -> tuple:
    """A native normalisation's saved statistics have no history (output_differentiability)."""
    for t in outputs[1:]:
        t._grad_fn = None
    return outputs


_LAYER_NORM = LazyParser("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
                         "float eps=1e-05, bool cudnn_enable=True)")


@signed(_LAYER_NORM)
def torch_layer_norm(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True)``."""
    _, b = _LAYER_NORM.parse(args, kwargs)
    return native_layer_norm(b["input"], b["normalized_shape"], b["weight"], b["bias"], b["eps"])[0]


def layer_norm(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,  # noqa: A002
               eps: float = 1e-5) -> Tensor:
    """``F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)``."""
    return torch_layer_norm(input, normalized_shape, weight, bias, eps, True)


CATALOG.register(torch_layer_norm, "layer_norm", torch=True)
CATALOG.register(native_layer_norm, "native_layer_norm", torch=True)
CATALOG.register(layer_norm, "layer_norm", namespaces=("nn.functional",))
