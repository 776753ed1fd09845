"""Picking and placing along a dim: ``index_select``, ``index_add``, ``gather``, ``scatter``,
``scatter_add``, ``masked_select`` and ``take``.

Each gradient is the opposite move (``gather``'s is ``scatter_add`` into zeros,
``index_select``'s ``index_add``), so repeated indices add up as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.limits import check_count
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..errors import TorchIndexError, TorchRuntimeError
from ..shape_rules import broadcast_all, list_str, wrap_dim
from ..tensor import Tensor, wrap_scalar
from .indexing import INDEX_PUT

CATALOG = Catalog(jvp=LINEAR, vmap="dims")
defop = CATALOG.defop


def _check_index(index: Tensor, name: str) -> None:
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise TorchRuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _index_select_forward(b: dict) -> Any:
    t, index = b["self"], b["index"]
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise TorchRuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise TorchIndexError("index_select(): Index is supposed to be a vector")
    dim = wrap_dim(b["dim"], t.ndim)
    idx = index._data.reshape(-1)
    size = t.shape[dim] if t.ndim else 1
    if t.ndim == 0 and idx.size > 1:
        raise TorchRuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    if t.ndim > 1 and t.numel() == 0 and idx.size and size == 0:
        raise TorchRuntimeError("index_select(): self indexing axis dim should be positive")
    bad = (idx < 0) | (idx >= size)  # no negative indices here
    if bad.any():
        if t.ndim > 1 and (dim == 1 or t.numel() == 0):
            # PyTorch's dim-1 fast path checks with caffe2's wording
            raise TorchRuntimeError(
                f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
        raise TorchIndexError("index out of range in self")
    if t.ndim and size:   # the result: a row of self for each index (more than self holds, maybe)
        check_count(t._data.size // size * idx.size, t._dtype.itemsize)
    return np.take(t._data, idx, axis=dim) if t.ndim else t._data.reshape(1)[idx].reshape(index.shape)


def _index_select_backward(g: Tensor, s: Any) -> Tensor:
    zeros = Tensor._make(np.zeros(s.self_sym_sizes, dtype=g._dtype.np), g._dtype)
    return zeros.index_add(s.dim, s.index, g)


defop("index_select", "index_select(Tensor input, int dim, Tensor index, *, Tensor? out=None)",
      _index_select_forward, node="IndexSelectBackward0", exposes=("dim", "self_sym_sizes"),
      derivs={"self": d("index", rule="zeros of self's shape, grad added at index along dim")(
          _index_select_backward)})


def _index_add_checks(t: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    """index_add's meta checks (index_func_meta_impl), then its kernel's bounds check."""
    if index.ndim > 1:
        raise TorchIndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
                              f"type: {index._dtype.legacy_name} and size: {list_str(index.shape)}")
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise TorchRuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {index._dtype.legacy_name}")
    if t._dtype is not source._dtype:
        raise TorchRuntimeError(f"index_add_(): self ({t._dtype.legacy_name}) and source "
                                f"({source._dtype.legacy_name}) must have the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        raise TorchIndexError(
            f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim {source.ndim}")
    n = index.numel()
    wanted = 1 if source.ndim == 0 else source.shape[dim]
    if n != wanted:
        raise TorchRuntimeError(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
                                f"({wanted}), for dim: {dim}")
    self_sizes, source_sizes = list(t.shape), list(source.shape)
    if t.ndim and source.ndim:
        del self_sizes[dim], source_sizes[dim]
    if self_sizes != source_sizes:
        raise TorchRuntimeError("source tensor shape must match self tensor shape, excluding the specified "
                                f"dimension. Got self.shape = {list_str(t.shape)} source.shape = "
                                f"{list_str(source.shape)}")
    _check_bounds(index._data, dim, t.shape[dim] if t.ndim else 1)


def _check_bounds(idx: np.ndarray, dim: int, size: int) -> None:
    """No index outside [0, size): PyTorch's scatter and index_add kernels take no negative ones."""
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise TorchRuntimeError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension {dim} with size {size}")


def _index_add_forward(b: dict) -> Any:
    t, index, source = b["self"], b["index"], b["source"]
    dim = wrap_dim(b["dim"], t.ndim)
    _index_add_checks(t, dim, index, source)
    out = t._data.copy()
    src = source._data.astype(t._dtype.np, copy=False) * t._dtype.np.type(b["alpha"])
    where = [slice(None)] * t.ndim
    where[dim] = index._data.reshape(-1)
    np.add.at(out, tuple(where), src)
    return out


defop("index_add", "index_add(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1)",
      _index_add_forward, node="IndexAddBackward0", inputs=("self", "source"), inplace=True,
      inplace_broadcasts=False,
      derivs={"self": d(rule="grad")(lambda g, s: g),
              "source": d("index", rule="grad.index_select(dim, index) * alpha")(
                  lambda g, s: g.index_select(s.dim, s.index) * s.alpha)})


def _gather_forward(b: dict) -> Any:
    t, index = b["self"], b["index"]
    _check_index(index, "gather")
    dim = wrap_dim(b["dim"], t.ndim)
    if index.ndim != t.ndim:
        raise TorchRuntimeError("Index tensor must have the same number of dimensions as input tensor")
    idx = index._data
    size = t.shape[dim]
    if ((idx < -size) | (idx >= size)).any():
        raise TorchRuntimeError(f"index {int(idx.max())} is out of bounds for dimension {dim} with size {size}")
    return np.take_along_axis(t._data[tuple(slice(0, n) for n in idx.shape[:dim])
                                      + (slice(None),)
                                      + tuple(slice(0, n) for n in idx.shape[dim + 1:])], idx, dim)


def _gather_backward(g: Tensor, s: Any) -> Tensor:
    zeros = Tensor._make(np.zeros(s.self_sym_sizes, dtype=g._dtype.np), g._dtype)
    return zeros.scatter_add(s.dim, s.index, g)


defop("gather", "gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False, Tensor? out=None)",
      # PyTorch's node keeps self too (gather_backward takes it for its sizes)
      _gather_forward, node="GatherBackward0", exposes=("dim", "sparse_grad"),
      derivs={"self": d("self", "index", rule="zeros of self's shape, grad added at index along dim")(
          _gather_backward)})


def _scatter_positions(t: Tensor, dim: int, index: Tensor) -> tuple:
    idx = index._data
    grids = np.indices(idx.shape, sparse=True)
    where = list(grids)
    where[dim] = idx
    return tuple(where)


def _scatter_checks(t: Tensor, dim: int, index: Tensor, src: Tensor, reduce: Any) -> None:
    """scatter's meta checks (scatter_gather_dtype_check, scatter_shape_check, the reduce name),
    then its kernel's bounds check."""
    tensor_src = not src._wrapped
    if index.numel() == 0:
        return
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise TorchRuntimeError("scatter(): Expected dtype int32/int64 for index")
    if tensor_src and t._dtype is not src._dtype:
        raise TorchRuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if max(t.ndim, 1) != max(index.ndim, 1):
        raise TorchRuntimeError("Index tensor must have the same number of dimensions as self tensor")

    def size(x: Tensor, d: int) -> int:
        return x.shape[d] if x.ndim else 1
    n = max(t.ndim, 1)
    wrong = any(size(index, d) > size(t, d) for d in range(n) if d != dim)
    if not wrong and tensor_src:
        wrong = any(size(index, d) > size(src, d) for d in range(n) if d < max(src.ndim, 1))
    if wrong:
        text = (f"Expected index {list_str(index.shape)} to be no larger than self {list_str(t.shape)} apart from "
                f"dimension {dim}")
        if tensor_src:
            text += f" and to be no larger size than src {list_str(src.shape)}"
        raise TorchRuntimeError(text)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise TorchRuntimeError("reduce argument must be either add or multiply.")
    _check_bounds(index._data, dim, size(t, dim))


def _scatter_forward(b: dict) -> Any:
    t, index = b["self"], b["index"]
    dim = wrap_dim(b["dim"], t.ndim)
    src = b["src"]
    reduce = b.get("reduce")
    _scatter_checks(t, dim, index, src, reduce)
    out = t._data.copy()
    if index.numel() == 0:
        return out
    if t.ndim == 0:  # (a 0-dim self is one element: index [0] or a 0-dim index)
        out = out.reshape(1)
        index = index.reshape(1)
        src = src if src._data.ndim == 0 else src.reshape(-1)
    where = _scatter_positions(t, dim, index)
    values = np.broadcast_to(src._data, index.shape) if src._data.ndim == 0 else \
        src._data[tuple(slice(0, n) for n in index.shape)]
    if reduce == "add" or b.get("_add"):
        np.add.at(out, where, values.astype(out.dtype))
    elif reduce == "multiply":
        np.multiply.at(out, where, values.astype(out.dtype))
    else:
        out[where] = values
    return out.reshape(t._data.shape)


def _scatter_self_grad(g: Tensor, s: Any) -> Tensor:
    zeros = wrap_scalar(0.0)
    return g.scatter(s.dim, s.index, zeros)


def _scatter_src_grad(g: Tensor, s: Any) -> Tensor:
    return g.gather(s.dim, s.index)


SCATTERED = d("index", rule="grad.gather(dim, index): grad where src went")(_scatter_src_grad)


defop("scatter", "scatter(Tensor input, int dim, Tensor index, Tensor src, *, str? reduce=None)",
      _scatter_forward, node=lambda b: "ScatterBackward1" if b["src"]._wrapped else "ScatterBackward0",
      inputs=("self", "src"), numbers_as_tensors=("src",), inplace=True, scalar_inputs=("src",),
      inplace_broadcasts=False,
      derivs={"self": d("index", rule="grad, 0 where src was scattered")(_scatter_self_grad), "src": SCATTERED})
defop("scatter_add", "scatter_add(Tensor input, int dim, Tensor index, Tensor src)",
      lambda b: _scatter_forward({**b, "_add": True}), node="ScatterAddBackward0",
      inputs=("self", "src"), inplace=True, inplace_broadcasts=False,
      derivs={"self": d(rule="grad")(lambda g, s: g), "src": SCATTERED})


def _masked_select_forward(b: dict) -> Any:
    t, mask = b["self"], b["mask"]
    if mask._dtype is not dtypes.bool_:
        raise TorchRuntimeError(
            "masked_select: expected BoolTensor for mask")
    shape = broadcast_all([t.shape, mask.shape])
    return np.broadcast_to(t._data, shape)[np.broadcast_to(mask._data, shape)]


def _masked_select_backward(g: Tensor, s: Any) -> Tensor:
    shape = broadcast_all([s.self_sym_sizes, s.mask.shape])
    zeros = Tensor._make(np.zeros(shape, dtype=g._dtype.np), g._dtype)
    mask = s.mask.expand(shape)
    full = run(INDEX_PUT, {"self": zeros, "indices": [(0, mask)], "values": g, "accumulate": True})
    return full.sum_to_size(s.self_sym_sizes)


defop("masked_select", "masked_select(Tensor input, Tensor mask, *, Tensor? out=None)",
      _masked_select_forward, node="MaskedSelectBackward0", vmap="masked_select",
      derivs={"self": d("mask", rule="zeros of self's shape, grad put where mask is True")(_masked_select_backward)})


def _take_forward(b: dict) -> Any:
    flat = b["self"]._data.reshape(-1)
    index = b["index"]
    if index._dtype is not dtypes.int64:
        raise TorchRuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype.legacy_name}")
    idx = index._data
    n = flat.size
    if ((idx < -n) | (idx >= n)).any():
        raise TorchIndexError(f"out of range: tried to access index {int(idx.max())} on a tensor of {n} elements.")
    return flat[idx]


defop("take", "take(Tensor input, Tensor index, *, Tensor? out=None)", _take_forward, node="TakeBackward0", vmap="take",
      derivs={"self": d("index", rule="zeros of self's shape, grad added at index (flat)")(lambda g, s: run(INDEX_PUT, {
          "self": Tensor._make(np.zeros(s.self_sym_sizes, dtype=g._dtype.np), g._dtype).reshape(-1),
          "indices": [(0, s.index.reshape(-1))], "values": g.reshape(-1), "accumulate": True}
      ).reshape(s.self_sym_sizes))})

