"""Parts of a tensor: ``slice`` (``x[a:b]``), ``narrow``, ``select``, ``diagonal`` (views), and
the copies ``flip``, ``tril``, ``triu``, ``diag_embed``, ``diag``.

The gradient of a view op is the gradient placed into zeros of the input's
shape (``_embed``), an op whose own gradient is the view op again (PyTorch's
``SliceBackwardBackward0`` and the like).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.limits import check_size
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..autograd.views import region_of
from ..errors import TorchIndexError, TorchNotImplementedError, TorchRuntimeError, TorchValueError
from ..shape_rules import wrap_dim, wrap_dims
from ..tensor import Tensor

CATALOG = Catalog(jvp=LINEAR, vmap="dims")
defop = CATALOG.defop

# -- narrow / select / slice / diagonal ----------------------------------------------------------

ON_DIAGONAL = "zeros of self's shape, grad on the diagonal at offset"


def _slice_forward(b: dict) -> Any:
    a = b["self"]._data
    dim = wrap_dim(b["dim"], a.ndim)
    start, end, step = b["start"], b["end"], b["step"]
    if step <= 0:
        raise TorchValueError("step must be greater than zero")
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, end, step)
    out = a[tuple(index)]
    if step > 1 and not out.shape[dim]:
        # (PyTorch's stride is stride * step even for an empty slice; NumPy keeps the old one)
        strides = list(out.strides)
        strides[dim] = a.strides[dim] * step
        out = np.lib.stride_tricks.as_strided(out, out.shape, strides)
    return out


def _slice_backward(g: Tensor, s: Any) -> Tensor:
    return _embed(s.self_sym_sizes, g, lambda t: slice_of(t, s.dim, s.start, s.end, s.step),
                  "SliceBackwardBackward0")


SLICE = defop("slice", "slice(Tensor input, int dim=0, int? start=None, int? end=None, int step=1)",
              _slice_forward, node="SliceBackward0", view=True, function=False, method=False,
              exposes=("dim", "start", "end", "step", "self_sym_sizes"),
              derivs={"self": d(rule="zeros of self's shape, grad at [start:end:step] along dim")(_slice_backward)})


def slice_of(t: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Tensor:
    """``t[..., start:end:step]`` along ``dim`` (aten::slice)."""
    return run(SLICE, {"self": t, "dim": dim, "start": start, "end": end, "step": step})


def _embed_forward(b: dict) -> Any:
    g = b["self"]
    out = np.zeros(b["shape"], dtype=g._dtype.np)
    region_of(b["region"], out)[...] = g._data
    return out


# The gradient of a view op: zeros of the input's shape with the gradient in the view's
# region.  Its own gradient is the view op again (PyTorch's <View>BackwardBackward0).
EMBED = defop("_embed", "_embed(Tensor input, any shape, any region, str node)", _embed_forward,
              node=lambda b: b["node"], function=False, method=False, vmap="embed",
              derivs={"self": d(rule="the part of grad the view covers (the view op again)")(lambda g, s: s.region(g))})


def _embed(shape: Any, g: Tensor, region: Any, node: str) -> Tensor:
    return run(EMBED, {"self": g, "shape": tuple(shape), "region": region, "node": node})


def _narrow(self: Tensor, dim: int, start: Any, length: int) -> Tensor:
    nd = self.ndim
    if nd == 0:
        raise TorchRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    given_dim = dim   # (slice gets it unwrapped, as PyTorch's narrow passes it: -1 shows in _saved_dim)
    dim = wrap_dim(dim, nd)
    size = self.shape[dim]
    start = int(start)
    if start < -size or start > size:
        raise TorchIndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise TorchRuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise TorchRuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return run(SLICE, {"self": self, "dim": given_dim, "start": start, "end": start + length, "step": 1})


def _select_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.ndim == 0:
        raise TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(b["dim"], a.ndim)
    i = b["index"]
    size = a.shape[dim]
    if not -size <= i < size:
        raise TorchIndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return a[(slice(None),) * dim + (i, Ellipsis)]


def _select_backward(g: Tensor, s: Any) -> Tensor:
    return _embed(s.self_sym_sizes, g, lambda t: t.select(s.dim, s.index), "SelectBackwardBackward0")


SELECT = defop("select", "select(Tensor input, int dim, int index)", _select_forward,
               node="SelectBackward0", view=True, exposes=("dim", "index", "self_sym_sizes"),
               derivs={"self": d(rule="zeros of self's shape, grad at index along dim")(_select_backward)})


def _diagonal_forward(b: dict) -> Any:
    a = b["self"]._data
    d1, d2 = wrap_dim(b["dim1"], a.ndim), wrap_dim(b["dim2"], a.ndim)
    if d1 == d2:
        raise TorchRuntimeError(f"diagonal dimensions cannot be identical {b['dim1']}, {b['dim2']}")
    return diagonal_view(a, b["offset"], d1, d2)


def diagonal_view(a: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """A writable view of a diagonal (NumPy's own ``diagonal`` is read-only)."""
    index = [slice(None)] * a.ndim
    if offset >= 0:
        index[d2] = slice(offset, None)
    else:
        index[d1] = slice(-offset, None)
    sub = a[tuple(index)]
    length = max(min(sub.shape[d1], sub.shape[d2]), 0)
    keep = [i for i in range(a.ndim) if i not in (d1, d2)]
    shape = tuple(sub.shape[i] for i in keep) + (length,)
    strides = tuple(sub.strides[i] for i in keep) + (sub.strides[d1] + sub.strides[d2],)
    return np.lib.stride_tricks.as_strided(sub, shape, strides, writeable=sub.flags.writeable)


def _diagonal_backward(g: Tensor, s: Any) -> Tensor:
    return _embed(s.self_sym_sizes, g, lambda t: t.diagonal(s.offset, s.dim1, s.dim2),
                  "DiagonalBackwardBackward0")


DIAGONAL = defop("diagonal", "diagonal(Tensor input, int offset=0, int dim1=0, int dim2=1)", _diagonal_forward,
      node="DiagonalBackward0", view=True, exposes=("dim1", "dim2", "offset", "self_sym_sizes"),
      derivs={"self": d(rule=ON_DIAGONAL)(_diagonal_backward)})


# -- flip / tril / triu / diag -----------------------------------------------------------------

def _flip_forward(b: dict) -> Any:
    a = b["self"]._data
    dims = wrap_dims(b["dims"], a.ndim)
    return np.flip(a, dims).copy() if dims and a.ndim else a.copy()


FLIP = defop("flip", "flip(Tensor input, int[] dims)", _flip_forward, node="FlipBackward0", exposes=("dims",),
      derivs={"self": d(rule="grad flipped back along dims")(lambda g, s: g.flip(s.dims))})


def _tri(fn: Any, name: str) -> Any:
    def forward(b: dict) -> Any:
        a = b["self"]._data
        if a.ndim < 2:
            raise TorchRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        # (any diagonal past the matrix means the same as its edge; NumPy overflows on int64's ends)
        return fn(a, max(min(b["diagonal"], a.shape[-1]), -a.shape[-2]))
    return forward


TRIL = defop("tril", "tril(Tensor input, int diagonal=0, *, Tensor? out=None)", _tri(np.tril, "tril"),
      node="TrilBackward0", vmap="unary", inplace=True, inplace_broadcasts=False, exposes=("diagonal",),
      derivs={"self": d(rule="tril(grad, diagonal)")(lambda g, s: g.tril(s.diagonal))})
TRIU = defop("triu", "triu(Tensor input, int diagonal=0, *, Tensor? out=None)", _tri(np.triu, "triu"),
      node="TriuBackward0", vmap="unary", inplace=True, inplace_broadcasts=False, exposes=("diagonal",),
      derivs={"self": d(rule="triu(grad, diagonal)")(lambda g, s: g.triu(s.diagonal))})


def _diag_embed_forward(b: dict) -> Any:
    a = b["self"]._data
    k = b["offset"]
    # the new diagonal's dims are dims of the result (one more than the input has)
    d1, d2 = wrap_dim(b["dim1"], a.ndim + 1), wrap_dim(b["dim2"], a.ndim + 1)
    if d1 == d2:
        raise TorchRuntimeError(f"diagonal dimensions cannot be identical {b['dim1']}, {b['dim2']}")
    if (d1, d2) != (a.ndim - 1, a.ndim):
        raise TorchNotImplementedError("gradcli does not support diag_embed with dim1/dim2 other than the last "
                                       "two yet")
    n = a.shape[-1] + abs(k)
    check_size(a.shape[:-1] + (n, n), a.itemsize)   # (n times what the input holds)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    rows = np.arange(a.shape[-1]) + max(-k, 0)
    cols = np.arange(a.shape[-1]) + max(k, 0)
    out[..., rows, cols] = a
    return out


DIAG_EMBED = defop("diag_embed", "diag_embed(Tensor input, int offset=0, int dim1=-2, int dim2=-1)",
                   _diag_embed_forward, node="DiagEmbedBackward0", exposes=("dim1", "dim2", "offset"),
                   derivs={"self": d(rule="the diagonal of grad at offset")(lambda g, s: g.diagonal(s.offset, -2, -1))})
DIAG_COPY = defop("_diagonal_copy", "_diagonal_copy(Tensor input, int offset=0)",
                  lambda b: diagonal_view(b["self"]._data, b["offset"], 0, 1).copy(),
                  node="DiagonalBackward0_copy", function=False, method=False, vmap="diagonal_copy",
                  exposes=("offset", "self_sym_sizes"), exposed_values={"dim1": lambda s: 0, "dim2": lambda s: 1},
                  derivs={"self": d(rule=ON_DIAGONAL)(
                      lambda g, s: _embed(s.self_sym_sizes, g, lambda t: t.diagonal(s.offset),
                                          "DiagonalBackwardBackward0"))})


def _diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    if input.ndim == 1:
        return run(DIAG_EMBED, {"self": input, "offset": diagonal, "dim1": -2, "dim2": -1})
    if input.ndim == 2:
        return run(DIAG_COPY, {"self": input, "offset": diagonal})
    raise TorchRuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")




CATALOG.register(_narrow, "narrow", torch=True, method=True,
                 sigs=["narrow(Tensor input, int dim, Tensor start, int length)",
                       "narrow(Tensor input, int dim, int start, int length)"])
CATALOG.register(_diag, "diag", torch=True, method=True, sigs="diag(Tensor input, int diagonal=0)")
