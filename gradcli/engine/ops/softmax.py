"""``logsumexp``, ``softmax`` and ``log_softmax`` (the lastdim float32 kernels bit for bit,
through ``kernels.sleef``).  Their gradients are PyTorch's ``_softmax_backward_data`` ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.promotion import arr, float_dtype
from ..dispatch.publish import Catalog
from ..errors import TorchNotImplementedError
from ..kernels import sleef
from ..shape_rules import wrap_dim
from ..tensor import Tensor
from . import backward_ops
from .reductions import expand_back, reduce_axes

CATALOG = Catalog(vmap="dims")
defop = CATALOG.defop


def _logsumexp_forward(b: dict) -> Any:
    t = b["self"]
    a = arr(t, float_dtype(t))
    axes = reduce_axes(b["dim"], t.ndim)
    keep = b["keepdim"]
    if a.size == 0:
        return np.log(np.sum(np.exp(a), axis=axes, keepdims=keep))
    m = np.max(a, axis=axes, keepdims=True)
    m = np.where(np.isinf(m), a.dtype.type(0), m)
    r = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return r if keep else np.squeeze(r, axis=axes)


def _logsumexp_backward(g: Tensor, s: Any) -> Tensor:
    shape = s.self_sym_sizes
    dims = reduce_axes(s.dim, len(shape))
    return expand_back(g, shape, dims, s.keepdim) * (s.self - expand_back(s.result, shape, dims, s.keepdim)).exp()


defop("logsumexp", "logsumexp(Tensor input, int[1] dim, bool keepdim=False, *, Tensor? out=None)",
      _logsumexp_forward, node="LogsumexpBackward0", exposes=("dim", "keepdim"), contiguous=True,
      derivs={"self": d("self", "result", rule="grad * exp(self - result)")(_logsumexp_backward)})


def _softmax_forward(log: bool) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        dt = b.get("dtype") or t._dtype
        dim = wrap_dim(b["dim"], t.ndim)  # checked before the kernel is chosen
        if t.numel() == 0 and b.get("dtype") is None:
            return t._data.copy()  # nothing to compute: no kernel, so no dtype error either
        if not dt.is_floating_point:
            # PyTorch has no integer softmax kernel (a dtype= argument converts first)
            last = t.ndim == 0 or dim == t.ndim - 1
            kernel = ("log_softmax" if log else "softmax") + ("_lastdim" if last else "") + "_kernel_impl"
            raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dt.legacy_name}'")
        a = arr(t, dt)
        dim = wrap_dim(b["dim"], a.ndim)
        if a.ndim == 0:
            return a - a if log else np.exp(a - a)  # 0 and 1, but NaN stays NaN
        if a.dtype == np.float32 and dim == a.ndim - 1 and 0 < a.size <= sleef.EXACT_LIMIT:
            return sleef.softmax_lastdim(a, log)  # PyTorch's lastdim kernels, bit for bit
        m = np.max(a, axis=dim, keepdims=True) if a.size else a
        shifted = a - m
        e = np.exp(shifted)
        total = np.sum(e, axis=dim, keepdims=True)
        return shifted - np.log(total) if log else e / total
    return forward


def _softmax_backward(g: Tensor, s: Any) -> Tensor:
    # PyTorch's _softmax_backward_data, an op of its own (see backward_ops)
    return backward_ops.call(backward_ops.SOFTMAX, g, self=s.result, dim=s.dim)


def _log_softmax_backward(g: Tensor, s: Any) -> Tensor:
    return backward_ops.call(backward_ops.LOG_SOFTMAX, g, self=s.result, dim=s.dim)


def _cast_first(bound: dict) -> None:
    """``dtype=`` converts the input before the op, as ``at::softmax`` does (a cast that changes
    the dtype is a ``ToCopyBackward0`` node below the softmax)."""
    dt = bound.get("dtype")
    if dt is not None:
        if bound["self"]._dtype is not dt:
            bound["self"] = bound["self"].to(dt)
        bound["dtype"] = None


SOFTMAX = defop("softmax", "softmax(Tensor input, int dim, dtype? dtype=None)", _softmax_forward(False),
                node="SoftmaxBackward0", exposes=("dim",), prepare=_cast_first, contiguous=True,
                derivs={"self": d("result", rule="result * (grad - sum(grad * result, dim))")(_softmax_backward)})
LOG_SOFTMAX = defop("log_softmax", "log_softmax(Tensor input, int dim, dtype? dtype=None)", _softmax_forward(True),
                    node="LogSoftmaxBackward0", exposes=("dim",), prepare=_cast_first, contiguous=True,
                    derivs={"self": d("result", rule="grad - exp(result) * sum(grad, dim)")(_log_softmax_backward)})
