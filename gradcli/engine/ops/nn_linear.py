"""``F.linear`` and ``F.bilinear`` by PyTorch's own decomposition (ATen ``linear``).

``linear`` is ``addmm`` for a 2-d input with a bias (``AddmmBackward0``);
with a bias that broadcasts along one dim and a contiguous input of any
other rank it flattens the input, runs ``addmm`` and views the result back
(``ViewBackward0``); otherwise it is ``matmul(input, weight.t())`` followed
by an in-place ``add_`` of the bias (``AddBackward0`` on top of matmul's own
nodes: ``MmBackward0``, ``SqueezeBackward4``, ``UnsafeViewBackward0``, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from .extras import ADDMM
from .registry import d, defop, run
from .signature import LazyParser
from .shape_rules import numel

_LINEAR = LazyParser("linear(Tensor input, Tensor weight, Tensor? bias=None)")


def linear(*args: Any, **kwargs: Any) -> Tensor:
    """``F.linear(input, weight, bias=None)``: ``input @ weight.T + bias``."""
    _, b = _LINEAR.parse(args, kwargs)
    x, w, bias = b["input"], b["weight"], b["bias"]
    if x.ndim == 0 or w.ndim == 0:
        raise TorchRuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and {w.ndim}D")
    if bias is not None:
        if x.ndim == 2:
            return _addmm(bias, x, w.t())
        if _fusable(bias) and x.is_contiguous():
            return _flattened(x, w, bias)
    from .linalg import _matmul
    out = _matmul(x, w.t())
    if bias is not None:
        out.add_(bias)
    return out


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    return run(ADDMM, {"self": bias, "mat1": mat1, "mat2": mat2, "beta": 1, "alpha": 1})


def _fusable(bias: Tensor) -> bool:
    # PyTorch's is_bias_likely_fusable: one non-trivial dim, contiguous.
    squeezed = sum(1 for s in bias.shape if s != 1)
    return (bias.ndim == 1 or squeezed == 1) and bias.is_contiguous()


def _flattened(x: Tensor, w: Tensor, bias: Tensor) -> Tensor:
    """PyTorch's ``_flatten_nd_linear``: all but the last dim folded into one for addmm."""
    sizes = tuple(x.shape)
    flat = x.reshape(numel(sizes[:-1]), sizes[-1])
    out = _addmm(bias, flat, w.t())
    return out.view(sizes[:-1] + (out.shape[1],))


# -- bilinear -----------------------------------------------------------------------------------

def _trilinear_forward(b: dict) -> Any:
    x1, w, x2 = b["self"]._data, b["weight"]._data, b["other"]._data
    return np.einsum("ni,oij,nj->no", x1, w, x2).astype(x1.dtype)


def _outer3(g: Tensor, a: Tensor, c: Tensor) -> Tensor:
    """g[n, o] * a[n, i] * c[n, j] as one (n, o, i, j) product."""
    return g.unsqueeze(2).unsqueeze(3) * a.unsqueeze(1).unsqueeze(3) * c.unsqueeze(1).unsqueeze(2)


TRILINEAR = defop(
    "_trilinear", "_trilinear(Tensor input, Tensor weight, Tensor other)", _trilinear_forward,
    node="TrilinearBackward0", inputs=("self", "weight", "other"), function=False, method=False,
    derivs={
        "self": d("weight", "other")(
            lambda g, s: (g.unsqueeze(2).unsqueeze(3) * s.weight.unsqueeze(0) * s.other.unsqueeze(1).unsqueeze(2))
            .sum((1, 3))),
        "weight": d("self", "other")(lambda g, s: _outer3(g, s.self, s.other).sum(0)),
        "other": d("self", "weight")(
            lambda g, s: (g.unsqueeze(2).unsqueeze(3) * s.weight.unsqueeze(0) * s.self.unsqueeze(1).unsqueeze(3))
            .sum((1, 2))),
    })

_BILINEAR = LazyParser("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)")


def bilinear(*args: Any, **kwargs: Any) -> Tensor:
    """``F.bilinear(input1, input2, weight, bias=None)``: ``x1^T A x2 + b`` over the last dims."""
    _, b = _BILINEAR.parse(args, kwargs)
    x1, x2, w, bias = b["input1"], b["input2"], b["weight"], b["bias"]
    if x1.ndim != x2.ndim:
        raise TorchRuntimeError(f"bilinear(): input dimensions do not match: got {x1.ndim} and {x2.ndim}")
    for i in range(x1.ndim - 1):
        if x1.shape[i] != x2.shape[i]:
            raise TorchRuntimeError(
                f"bilinear(): input batch dimensions do not match: got {x1.shape[i]} and {x2.shape[i]}")
    # Sizes are read as PyTorch reads them (a weight of too few dims fails on size(2)).
    out_features, in1, in2 = w.size(0), w.size(1), w.size(2)
    if x1.shape[-1] != in1:
        raise TorchRuntimeError(
            f"bilinear(): input1 size does not match weight size: got {x1.shape[-1]} but expected {in1}")
    if x2.shape[-1] != in2:
        raise TorchRuntimeError(
            f"bilinear(): input2 size does not match weight size: got {x2.shape[-1]} but expected {in2}")
    if bias is not None and bias.ndim and bias.shape[0] != out_features:
        raise TorchRuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected {out_features}")
    batch = tuple(x1.shape[:-1])
    flat1 = x1.reshape(-1, x1.shape[-1])
    flat2 = x2.reshape(-1, x2.shape[-1])
    out = run(TRILINEAR, {"self": flat1, "weight": w, "other": flat2}).reshape(batch + (out_features,))
    return out + bias if bias is not None else out
