"""Vector norms: ``torch.norm``, ``Tensor.norm`` and ``torch.linalg.vector_norm``, one op
(``LinalgVectorNormBackward0``, as in PyTorch 2.x) with PyTorch's ``norm_backward``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.promotion import arr
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser
from ..errors import TorchAttributeError, TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor
from .reductions import exposed_dims, reduce_axes

CATALOG = Catalog(vmap="reduction")
defop = CATALOG.defop


def _norm_forward(b: dict) -> Any:
    t = b["self"]
    p = b.get("p", 2)
    p = 2 if p is None else p
    if isinstance(p, str):
        if p != "fro":
            raise TorchRuntimeError(f"linalg.vector_norm: expected ord to be a number, but got {p}")
        p = 2
    dt = b.get("dtype") or t._dtype
    if not dt.is_floating_point:
        raise TorchRuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {dt.legacy_name}")
    a = arr(t, dt)
    axes = reduce_axes(b.get("dim"), t.ndim)
    keep = b.get("keepdim", False)
    if p in (math.inf, -math.inf) and a.size == 0:
        # max and min of nothing have no identity (the missing space is PyTorch's)
        name = "inf" if p > 0 else "-inf"
        empty = next((i for i in axes if a.shape[i] == 0), None)
        if b.get("dim") is None:
            raise TorchRuntimeError(f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
                                    "the operation does not have an identity")
        if empty is not None:
            raise TorchRuntimeError(f"linalg.vector_norm cannot compute the {name} norm on the dimension {empty}"
                                    "because this dimension is empty and the operation does not have an identity")
    absa = np.abs(a)
    if p == math.inf:
        r = np.max(absa, axis=axes, keepdims=keep, initial=dt.np.type(0))
    elif p == -math.inf:
        r = np.min(absa, axis=axes, keepdims=keep)
    elif p == 0:
        r = np.sum(absa != 0, axis=axes, keepdims=keep).astype(dt.np)
    elif p == 1:
        r = np.sum(absa, axis=axes, keepdims=keep, dtype=dt.np)
    elif p == 2:
        r = np.sqrt(np.sum(absa * absa, axis=axes, keepdims=keep, dtype=dt.np))
    else:
        r = np.sum(absa ** dt.np.type(p), axis=axes, keepdims=keep, dtype=dt.np) ** dt.np.type(1.0 / p)
    return np.asarray(r, dtype=dt.np)


def _norm_backward(g: Tensor, s: Any) -> Tensor:
    """PyTorch's norm_backward, op for op (so a create_graph gradient has its graph): the
    gradient and the norm are unsqueezed back (not expanded) and broadcast."""
    x = s.self
    p = getattr(s, "p", 2)
    p = 2 if p is None or p == "fro" else p
    dim = getattr(s, "dim", None)
    dims = () if dim is None or dim == () else reduce_axes(dim, x.ndim)
    norm = s.result
    if not getattr(s, "keepdim", False) and x.ndim:
        for axis in sorted(dims):
            g, norm = g.unsqueeze(axis), norm.unsqueeze(axis)
    if p == 0:
        return None  # PyTorch's norm_backward gives no gradient at all for ord 0
    if p == 1:
        return x.sgn() * g
    if p == 2:
        # At the zero vector the gradient is 0, not nan.
        return g * (x / norm).masked_fill(norm == 0, 0.0)
    if p in (math.inf, -math.inf):
        # ties (and NaNs) share the gradient
        mask = (x.abs() == norm).logical_or(x.abs().isnan())
        return x.sgn() * ((g / mask.sum(dims, keepdim=True)) * mask)
    if p < 1:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0.0)
        return scaled * g * norm.pow(1 - p)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * (g / norm.pow(p - 1)).masked_fill(norm == 0, 0.0)


NORM = defop("_norm", "_norm(Tensor input, any p, int[1]? dim=None, bool keepdim=False, *, dtype? dtype=None)",
             _norm_forward, node="LinalgVectorNormBackward0", function=False, method=False, contiguous=True,
             exposed_values={"dim": exposed_dims, "keepdim": lambda s: bool(s.get("keepdim", False)),
                             "ord": lambda s: 2 if s.get("p") in (None, "fro") else s["p"]},
             derivs={"self": d("self", "result", rule="grad * sign(self) * abs(self)^(p - 1) / result^(p - 1)")(
                 _norm_backward)})


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,  # noqa: A002
         dtype: Any = None) -> Tensor:
    """``torch.norm``/``Tensor.norm``: a Python function in PyTorch too (vector norms only here),
    reading ``input.layout`` first and calling ``torch.linalg.vector_norm`` by position."""
    if not isinstance(input, Tensor):
        raise TorchAttributeError(f"'{type(input).__name__}' object has no attribute 'layout'")
    if isinstance(p, str) and p != "fro":
        raise TorchNotImplementedError(f"gradcli does not support torch.norm with p='{p}' yet")
    if p == "fro" and isinstance(dim, (tuple, list)) and len(dim) > 2:
        # three or more dims make it a matrix norm in PyTorch, which wants exactly two
        raise TorchRuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    _, b = _VECTOR_NORM.parse((input, 2 if p == "fro" else p, dim, keepdim), {"dtype": dtype})
    return run(NORM, {"self": input, "p": p, "dim": b["dim"], "keepdim": keepdim, "dtype": b["dtype"]})



def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                out: Any = None, dtype: Any = None) -> Tensor:
    """``torch.linalg.vector_norm`` (and ``linalg.norm`` of a vector)."""
    _, b = _VECTOR_NORM.parse((x, ord, dim, keepdim), {"dtype": dtype})
    return run(NORM, {"self": x, "p": b["ord"], "dim": b["dim"], "keepdim": keepdim, "dtype": b["dtype"]})


_VECTOR_NORM = LazyParser("linalg_vector_norm(Tensor input, Scalar ord=2, int[1]? dim=None, bool keepdim=False, "
                          "*, dtype? dtype=None)")





CATALOG.register(norm, "norm", torch=True, method=True)
CATALOG.register(vector_norm, "vector_norm", namespaces=("linalg",))
