"""``F.batch_norm``, ``torch.batch_norm`` and ``torch.native_batch_norm`` (``NativeBatchNormBackward0``).

In training mode the batch statistics normalise the input and update the
running statistics in place (their version counters move, as in PyTorch); in
eval mode the running statistics normalise it.  Values and gradients are
PyTorch's CPU kernels (``batch_norm_kernel.py``); with ``create_graph=True`` the
gradient is composed of differentiable ops instead.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from ..autograd import grad_mode
from ..autograd.formulas import together
from ..dispatch.publish import Catalog
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchRuntimeError, TorchTypeError, TorchValueError
from ..shape_rules import list_str
from ..tensor import Tensor
from .layer_norm import statistics_not_differentiable
from .reduction import attribute

CATALOG = Catalog()
defop = CATALOG.defop


def _ncl(x: Tensor) -> np.ndarray:
    a = np.ascontiguousarray(x._data)
    return a.reshape(a.shape[0], a.shape[1], int(np.prod(a.shape[2:])))   # (not -1: an empty input has no -1)


def _vector(t: Tensor | None, dtype: np.dtype) -> np.ndarray | None:
    return None if t is None else np.ascontiguousarray(t._data, dtype=dtype).reshape(-1)


def _check_features(x: Tensor, b: dict) -> None:
    features = x.shape[1]
    for name in ("weight", "bias", "running_mean", "running_var"):
        t = b.get(name)
        if t is not None and t.numel() != features:
            raise TorchRuntimeError(f"{name} should contain {features} elements not {t.numel()}")


def _forward(b: dict) -> tuple:
    from . import batch_norm_kernel as kernel  # (loaded on first use: start-up stays lean)
    x = b["self"]
    if x.ndim < 2:
        raise TorchRuntimeError(f"batch_norm(): Expected input to have at least 2 dimensions, but got {x.ndim}")
    if not x._dtype.is_floating_point:
        raise TorchRuntimeError(f"\"batch_norm\" not implemented for '{x._dtype.legacy_name}'")
    if b["training"] and x.numel() == 0:
        raise TorchRuntimeError(f"input tensor must have at least one element, but got input_sizes = "
                                f"{list_str(x.shape)}")
    running_mean, running_var = b["running_mean"], b["running_var"]
    if not b["training"] and (running_mean is None or running_var is None):
        raise TorchRuntimeError(f"{'running_mean' if running_mean is None else 'running_var'} must be defined in "
                                "evaluation mode")
    _check_features(x, b)
    if not x.is_contiguous():
        return _strided_forward(x, b)
    a = _ncl(x)
    weight, bias = _vector(b["weight"], a.dtype), _vector(b["bias"], a.dtype)
    if b["training"]:
        mean, invstd, var_sum = kernel.train_statistics(a, b["eps"])
        rm = None if running_mean is None else running_mean._data
        rv = None if running_var is None else running_var._data
        kernel.update_running(rm, rv, mean, var_sum, a.shape[0] * a.shape[2], b["momentum"])
        for t in (running_mean, running_var):
            if t is not None:
                t._vc.value += 1  # (written in place by the kernel)
        out = kernel.transform(a, weight, bias, mean, invstd)
        return out.reshape(x.shape), mean, invstd
    rm = np.asarray(running_mean._data, dtype=a.dtype).reshape(-1)
    invstd = kernel.eval_invstd(np.asarray(running_var._data, dtype=a.dtype).reshape(-1), b["eps"])
    out = kernel.transform(a, weight, bias, rm, invstd)
    empty = np.zeros(0, dtype=a.dtype)
    return out.reshape(x.shape), empty, empty.copy()


def _reduce_dims(ndim: int) -> tuple[int, ...]:
    return (0,) + tuple(range(2, ndim))


def _strided_forward(x: Tensor, b: dict) -> tuple:
    """A non-contiguous input: PyTorch's per-channel loops (``batch_norm_strided.py``)."""
    from . import batch_norm_kernel as kernel
    from . import batch_norm_strided as strided
    a = x._data
    weight, bias = _vector(b["weight"], a.dtype), _vector(b["bias"], a.dtype)
    running_mean, running_var = b["running_mean"], b["running_var"]
    if b["training"]:
        with grad_mode.no_grad():
            mean = x.mean(_reduce_dims(x.ndim))._data
        invstd, var_sum = strided.train_statistics(a, mean, b["eps"])
        strided.update_running(None if running_mean is None else running_mean._data,
                               None if running_var is None else running_var._data, mean, var_sum,
                               a.size // a.shape[1], b["momentum"])
        for t in (running_mean, running_var):
            if t is not None:
                t._vc.value += 1  # (written in place by the kernel)
        return strided.transform(a, weight, bias, mean, invstd), mean, invstd
    rm = np.asarray(running_mean._data, dtype=a.dtype).reshape(-1)
    invstd = kernel.eval_invstd(np.asarray(running_var._data, dtype=a.dtype).reshape(-1), b["eps"])
    empty = np.zeros(0, dtype=a.dtype)
    return strided.transform(a, weight, bias, rm, invstd), empty, empty.copy()


def _strided_grads(gy: Tensor, s: Any) -> tuple:
    """A non-contiguous input or incoming gradient: PyTorch's per-channel loops."""
    from . import batch_norm_strided as strided
    x = s.self
    a = x._data
    with grad_mode.no_grad():
        sums = gy.sum(_reduce_dims(x.ndim))._data
    if s.training:
        mean, invstd = s.result1._data, s.result2._data
    else:
        mean = np.asarray(s.running_mean._data, dtype=a.dtype).reshape(-1)
        invstd = strided.backward_eval_invstd(np.asarray(s.running_var._data, dtype=a.dtype).reshape(-1), s.eps)
    dx, dw, db = strided.backward(np.asarray(gy._data, dtype=a.dtype), a, sums, _vector(s.weight, a.dtype), mean,
                                  invstd, s.training)
    return Tensor._make(np.ascontiguousarray(dx), x._dtype), Tensor._make(dw, x._dtype), Tensor._make(db, x._dtype)


def _per_channel(t: Tensor, ndim: int) -> Tensor:
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _composite_grads(g: Tensor, s: Any) -> tuple:
    """The gradients as differentiable ops (for ``create_graph=True``)."""
    x, weight = s.self, s.weight
    dims = (0,) + tuple(range(2, x.ndim))
    if s.training:
        mean = x.mean(dims, keepdim=True)
        centred = x - mean
        invstd = ((centred * centred).mean(dims, keepdim=True) + s.eps).rsqrt()
    else:
        centred = x - _per_channel(s.running_mean, x.ndim)
        invstd = _per_channel((s.running_var + s.eps).rsqrt(), x.ndim)
    xhat = centred * invstd
    gxhat = g if weight is None else g * _per_channel(weight, x.ndim)
    if s.training:
        dx = invstd * (gxhat - gxhat.mean(dims, keepdim=True) - xhat * (gxhat * xhat).mean(dims, keepdim=True))
    else:
        dx = gxhat * invstd
    return dx, (g * xhat).sum(dims), g.sum(dims)


def _grads(g: list, s: Any) -> tuple:
    """(dx, dweight, dbias) of one backward call (autograd.formulas.together keeps them)."""
    gy = g[0]
    if grad_mode.is_grad_enabled():
        found = _composite_grads(gy, s)
    elif not (s.self.is_contiguous() and gy.is_contiguous()):
        found = _strided_grads(gy, s)
    else:
        from . import batch_norm_kernel as kernel
        x = s.self
        a = _ncl(x)
        dy = np.ascontiguousarray(gy._data, dtype=a.dtype).reshape(a.shape)
        if s.training:
            mean, invstd = s.result1._data, s.result2._data
        else:
            mean = np.asarray(s.running_mean._data, dtype=a.dtype).reshape(-1)
            invstd = kernel.backward_eval_invstd(np.asarray(s.running_var._data, dtype=a.dtype).reshape(-1), s.eps)
        dx, dw, db = kernel.backward(dy, a, _vector(s.weight, a.dtype), mean, invstd, s.training)
        found = (Tensor._make(dx.reshape(x.shape), x._dtype), Tensor._make(dw, x._dtype), Tensor._make(db, x._dtype))
    return found


_SAVED = ("self", "weight", "running_mean", "running_var", "result1", "result2")
NATIVE_BATCH_NORM = defop(
    "native_batch_norm", "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps)", _forward, node="NativeBatchNormBackward0",
    inputs=("self", "weight", "bias"), function=False, method=False, exposes=("training", "eps"),
    derivs=together(("self", "weight", "bias"), _SAVED, _grads, rules=(
        "invstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = grad * weight; eval: gw * invstd",
        "sum(grad * xhat) per channel, xhat = (self - mean) * invstd",
        "sum(grad) per channel")))

def native_batch_norm(*args: Any, **kwargs: Any) -> tuple:
    """``torch.native_batch_norm``: (output, save_mean, save_invstd); only the output is differentiable."""
    return statistics_not_differentiable(NATIVE_BATCH_NORM(*args, **kwargs))


_BATCH_NORM = LazyParser("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                         "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)")


@signed(_BATCH_NORM)
def torch_batch_norm(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)``."""
    _, b = _BATCH_NORM.parse(args, kwargs)
    x, weight, bias = b["input"], b["weight"], b["bias"]
    if x.numel() == 0:   # (PyTorch's batch_norm: an empty input is cloned, scaled and shifted, nothing checked)
        out = x.clone()
        out = out if weight is None else out * weight[0]
        return out if bias is None else out + bias[0]
    return native_batch_norm(b["input"], b["weight"], b["bias"], b["running_mean"], b["running_var"], b["training"],
                             b["momentum"], b["eps"])[0]


def _verify_batch_size(size: Any) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise TorchValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _compare(op: Callable[[Any, Any], Any], a: Any, b: float) -> bool:
    """PyTorch's Python code compares eps itself: a value that does not compare fails as Python fails."""
    try:
        return bool(op(a, b))
    except TypeError as error:
        raise TorchTypeError(str(error)) from None


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,  # noqa: A002
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """``F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, ...)``."""
    if training:
        _verify_batch_size(attribute(input, "size")())
    if training and _compare(operator.le, eps, 0.0):
        raise TorchValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if _compare(operator.lt, eps, 0.0):
        raise TorchValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


CATALOG.register(torch_batch_norm, "batch_norm", torch=True)
CATALOG.register(native_batch_norm, "native_batch_norm", torch=True)
CATALOG.register(batch_norm, "batch_norm", namespaces=("nn.functional",))
