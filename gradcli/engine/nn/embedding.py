"""``F.embedding`` and ``torch.embedding``: rows of a weight picked by indices.

``embedding`` is a native op (``EmbeddingBackward0``) whose gradient is
``embedding_dense_backward``: the output rows added into a zero weight, index
by index in order, skipping ``padding_idx`` (and divided by each index's count
with ``scale_grad_by_freq``).  That backward is an op too
(``EmbeddingDenseBackwardBackward0``), so a second derivative exists.
``max_norm`` renormalises the looked-up rows of the weight in place first.
"""

from __future__ import annotations

import operator

from typing import Any

import numpy as np

from ..dispatch.op import LINEAR
from ..autograd import grad_mode
from ..autograd.formulas import d
from ..device import TorchAssertionError
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..callbacks import arithmetic
from ..errors import TorchIndexError, TorchNotImplementedError, TorchRuntimeError
from ..kernels.exactfp import fma32, fma64
from ..tensor import Tensor
from .reduction import attribute

CATALOG = Catalog()
defop = CATALOG.defop


def _check_indices(indices: Tensor, name: str) -> None:
    if indices._dtype.name not in ("int64", "int32"):
        raise TorchRuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"torch.{indices._dtype.legacy_name}Tensor instead (while checking arguments for {name})")


def _embedding_forward(b: dict) -> Any:
    weight, indices = b["weight"], b["indices"]
    if weight.ndim != 2:
        raise TorchRuntimeError("'weight' must be 2-D")
    _check_indices(indices, "embedding")
    idx = indices._data
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise TorchIndexError("index out of range in self")
    return weight._data[idx.astype(np.int64)]


def _dense_backward_forward(b: dict) -> Any:
    grad, indices = b["grad_output"], b["indices"]
    num_weights, padding_idx = b["num_weights"], b["padding_idx"]
    g = grad._data
    dim = g.shape[-1] if g.ndim else 1
    idx = indices._data.reshape(-1).astype(np.int64)
    rows = np.ascontiguousarray(g).reshape(idx.size, dim)
    out = np.zeros((num_weights, dim), dtype=g.dtype)
    keep = idx != padding_idx
    if b["scale_grad_by_freq"]:
        counts = np.bincount(idx, minlength=num_weights)
        scale = (1.0 / counts[idx]).astype(g.dtype)[:, None]  # (add_ with alpha: one fma per row)
        fma = fma32 if g.dtype == np.float32 else fma64
        for i in np.nonzero(keep)[0]:
            k = idx[i]
            out[k] = fma(rows[i], np.broadcast_to(scale[i], rows[i].shape), out[k])
        return out
    np.add.at(out, idx[keep], rows[keep])  # (row by row in index order, as PyTorch adds them)
    return out


def _double_backward(g: Tensor, s: Any) -> Tensor:
    """``embedding_dense_double_backward``: the rows of ``g`` the indices pick, padding zeroed."""
    indices = s.indices
    picked = g.index_select(0, indices.reshape(-1))
    if s.padding_idx >= 0:
        picked.masked_fill_((indices == s.padding_idx).reshape(-1, 1), 0)
    return picked.view(tuple(indices.shape) + (-1,))


EMBEDDING_DENSE_BACKWARD = defop(
    "embedding_dense_backward",
    "embedding_dense_backward(Tensor grad_output, Tensor indices, int num_weights, int padding_idx, "
    "bool scale_grad_by_freq)", _dense_backward_forward, jvp=LINEAR, node="EmbeddingDenseBackwardBackward0",
    inputs=("grad_output",), method=False, exposes=("padding_idx",),
    derivs={"grad_output": d("indices", rule="the rows of grad at indices (0 at padding_idx)")(_double_backward)})


def _embedding_backward(g: Tensor, s: Any) -> Tensor:
    return run(EMBEDDING_DENSE_BACKWARD, {"grad_output": g, "indices": s.indices, "num_weights": s.weight_sym_sizes[0],
                                          "padding_idx": s.padding_idx, "scale_grad_by_freq": s.scale_grad_by_freq})


EMBEDDING = defop(
    "embedding", "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False)", _embedding_forward, jvp=LINEAR, node="EmbeddingBackward0", inputs=("weight",), method=False,
    vmap="embedding",
    exposes=("padding_idx", "scale_grad_by_freq", "sparse"),
    derivs={"weight": d("indices", rule="zeros of weight's shape, grad's rows added at indices")(_embedding_backward)})


def _renorm(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """``embedding_renorm_``: each looked-up row whose norm exceeds ``max_norm`` is scaled down."""
    _check_indices(indices, "embedding_renorm_")
    with grad_mode.no_grad():
        for k in np.unique(indices._data.reshape(-1)):
            row = weight[int(k)]
            norm = float(row.norm(norm_type).item())
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))


def embedding(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,  # noqa: A002
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``F.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, ...)``."""
    size = attribute(weight, "size")
    if padding_idx is not None:
        if arithmetic(operator.gt, padding_idx, 0):  # (Python's comparison error for a str, as in PyTorch)
            if padding_idx >= size(0):
                raise TorchAssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -size(0):
                raise TorchAssertionError("Padding_idx must be within num_embeddings")
            padding_idx = size(0) + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise TorchNotImplementedError("gradcli does not support sparse gradients (embedding with sparse=True) yet")
    if max_norm is not None:
        input = attribute(input, "contiguous")()
        _renorm(weight, input, max_norm, norm_type)
    return EMBEDDING(weight, input, padding_idx, scale_grad_by_freq, sparse)


CATALOG.register(embedding, "embedding", namespaces=("nn.functional",))
