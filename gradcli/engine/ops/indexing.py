"""Indexing: ``x[...]`` and ``x[...] = v`` (and ``index_put_``).

Basic indices (ints, slices, None, ``...``) become a chain of view ops, as
PyTorch's ``applySlicing`` does (``SelectBackward0``, ``SliceBackward0``,
``UnsqueezeBackward0``, ``AliasBackward0``); index tensors and lists then
go through one advanced ``index`` op (``IndexBackward0``), whose gradient
adds up repeated indices.  Assignment writes through the same views with
``copy_`` (``CopySlices``) or ``index_put_`` (``IndexPutBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.formulas import d
from ..autograd.views import gradient_edge
from ..dispatch.memory import PARTIAL_OVERLAP_MESSAGE, overlap_status, repeats
from ..dispatch.op import SHARED
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.runner import run, run_inplace
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..shape_rules import broadcast_all, is_expandable_to, list_str
from ..tensor import Tensor, wrap_scalar
from ..warnings import warn
from .factories import tensor as new_tensor
from .shape import ALIAS
from .slicing import SLICE

CATALOG = Catalog(jvp=LINEAR, vmap="dims")
defop = CATALOG.defop


# -- parsing an index ------------------------------------------------------------------------

def _as_index_tensor(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    try:
        t = new_tensor(value)
    except (TypeError, ValueError, RuntimeError):
        raise TorchIndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            f"indices (got {type(value).__name__})") from None
    if t.numel() == 0:
        return Tensor._make(np.zeros(t.shape, dtype=np.int64))
    return t


def _normalise(index: Any) -> tuple[list, bool]:
    """The index as a list of items, and whether it was a single (non-tuple) item (NumPy's
    integers and bools are Python's, an ndarray an index tensor, as PyTorch reads them)."""
    if isinstance(index, tuple):
        return [_from_numpy_index(item) for item in index], False
    return [_from_numpy_index(index)], True


def _from_numpy_index(item: Any) -> Any:
    if isinstance(item, np.generic) and item.dtype.kind in "biu":
        return item.item()
    if isinstance(item, np.ndarray):
        return Tensor._make(np.array(item), dtypes.of_numpy(item.dtype))
    return item


def _is_advanced(item: Any) -> bool:
    if isinstance(item, Tensor):
        return not (item.ndim == 0 and item._dtype.category == dtypes.INTEGRAL)
    return isinstance(item, (list, tuple)) or (isinstance(item, bool))


def _is_bool_scalar(item: Any) -> bool:
    """A Python bool or a 0-dim bool tensor: both add a dim of size 1 (True) or 0 (False)."""
    return isinstance(item, bool) or (isinstance(item, Tensor) and item._dtype is dtypes.bool_ and item.ndim == 0)


def _consumed(item: Any) -> int:
    if item is None or item is Ellipsis:
        return 0
    if _is_bool_scalar(item):
        return 0
    if isinstance(item, Tensor) and item._dtype is dtypes.bool_:
        return item.ndim
    return 1


def apply_indexing(self: Tensor, index: Any, setting: bool = False) -> tuple[Tensor, list[tuple[int, Tensor]]]:
    """Apply the basic part of ``index`` as views; return the view and the advanced indices.

    Like PyTorch's ``applySlicing``, a slice that covers a whole dim is skipped, except
    for ``x[a:b]`` alone when reading (``get_item`` always makes that view).
    """
    items, single = _normalise(index)
    for item in items:
        if not (item is None or item is Ellipsis or isinstance(item, (int, slice, list, tuple, Tensor))):
            if isinstance(item, str):
                raise TorchTypeError("new(): invalid data type 'str'")
            raise TorchIndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                f"indices (got {type(item).__name__})")
    ndim = self.ndim
    used = sum(_consumed(i) for i in items)
    if single and ndim == 0 and (isinstance(index, slice) or isinstance(index, int) and not isinstance(index, bool)):
        # the one-item fast paths of PyTorch's indexing say it their own way (a 0-dim size is 0)
        if isinstance(index, slice):
            _step(index)  # a bad step is reported first
            if grad_mode._enabled and self.requires_grad:
                gradient_edge(self)  # then slice's node takes its edge (a stale view fails here)
            raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
        if index == 0:
            raise TorchIndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise TorchIndexError(f"index {index} is out of bounds for dimension 0 with size 0")
    if used > ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {ndim}")
    result = self
    applied = False
    dim = 0  # the dim of `result` the next item applies to
    advanced: list[tuple[int, Tensor]] = []
    for position, item in enumerate(items):
        real = position  # PyTorch's messages name the index's position, not a dim
        if item is Ellipsis:
            # every Ellipsis skips the unindexed dims, a second one too (PyTorch's applySlicing);
            # what then lands past the last dim is handled below as PyTorch's build behaves
            dim += ndim - used
        elif dim >= result.ndim and not (item is None or _is_bool_scalar(item)):
            if isinstance(item, slice):  # a slice there changes nothing
                dim += 1
                continue
            if isinstance(item, int) or (isinstance(item, Tensor) and not _is_advanced(item)):
                raise TorchIndexError(f"index {int(item)} is out of bounds for dimension {real} with size 0")
            raise TorchIndexError(f"too many indices for tensor of dimension {ndim} (got {dim + 1})")
        elif item is None:
            result = result.unsqueeze(dim)
            applied = True
            dim += 1
        elif _is_bool_scalar(item):
            # PyTorch's boolToIndexingTensor: an index [0] for True, an empty one for False
            result = result.unsqueeze(dim)
            advanced.append((dim, Tensor._make(np.zeros(1 if bool(item) else 0, dtype=np.int64))))
            applied = True
            dim += 1
        elif isinstance(item, int) or (isinstance(item, Tensor) and not _is_advanced(item)):
            i = int(item)
            size = result.shape[dim]
            if not -size <= i < size:
                raise TorchIndexError(f"index {i} is out of bounds for dimension {real} with size {size}")
            result = result.select(dim, i)
            applied = True
        elif isinstance(item, slice):
            if (single and not setting) or not _whole(result.shape[dim], item):
                result = _slice(result, dim, item)
                applied = True
            dim += 1
        else:
            t = _as_index_tensor(item)
            advanced.append((dim, t))
            step = t.ndim if t._dtype is dtypes.bool_ else 1
            dim += step
    if not applied and not advanced and not setting:
        result = run(ALIAS, {"self": result})
    return result, advanced


def _whole(size: int, s: slice) -> bool:
    # PyTorch's test on the slice as written: start 0 (not -size), stop at or past the end, step 1
    # (the bounds are checked as Python's slice unpacking checks them, in its order, before any test)
    step = _step(s)
    start = None if s.start is None else _bound(s.start)
    stop = None if s.stop is None else _bound(s.stop)
    return step == 1 and (start is None or start == 0) and (stop is None or stop >= size)


def _step(s: slice) -> int:
    step = 1 if s.step is None else _bound(s.step)
    if step == 0:
        raise TorchValueError("slice step cannot be zero")  # Python's own slice check comes first
    if step < 0:
        raise TorchValueError("step must be greater than zero")
    return step


def _slice(t: Tensor, dim: int, s: slice) -> Tensor:
    step = _step(s)
    # as written, as PyTorch's node keeps them (x[-2:] saves start -2, an open end INT64_MAX);
    # the kernel wraps and clamps them as NumPy's slicing does
    start = 0 if s.start is None else _bound(s.start)
    stop = _INT64_MAX if s.stop is None else _bound(s.stop)
    return run(SLICE, {"self": t, "dim": dim, "start": start, "end": stop, "step": step})


_INT64_MAX = (1 << 63) - 1


def _bound(value: Any) -> int:
    """A slice's start or stop as Python takes one (an int, or what has __index__)."""
    if not hasattr(type(value), "__index__"):
        raise TorchTypeError("slice indices must be integers or None or have an __index__ method")
    return int(value.__index__())


def _numpy_index(shape: tuple, advanced: list[tuple[int, Tensor]], bounds: bool = True) -> tuple:
    """A NumPy index tuple for the advanced indices, with PyTorch's checks.

    Without ``bounds`` an out-of-range index is wrapped instead of refused (to learn
    the result's shape before PyTorch's kernel would check the bounds)."""
    parts: list[Any] = []
    dim = 0
    pending = dict(advanced)
    checks: list[tuple[int, np.ndarray, int]] = []  # (position in parts, index, size) to bounds-check
    while dim < len(shape) or dim in pending:
        if dim not in pending:
            parts.append(slice(None))
            dim += 1
            continue
        t = pending[dim]
        if t._dtype is dtypes.bool_:
            mask = t._data
            for k in range(mask.ndim):
                if dim + k >= len(shape) or mask.shape[k] != shape[dim + k]:
                    raise TorchIndexError(
                        f"The shape of the mask {list_str(mask.shape)} at index {k} does not match the shape "
                        f"of the indexed tensor {list_str(shape)} at index {dim + k}")
            parts.append(mask)
            dim += max(mask.ndim, 1) if mask.ndim else 1
            if mask.ndim == 0:
                dim -= 1
        elif t._dtype.category == dtypes.INTEGRAL:
            idx = t._data
            size = shape[dim]
            checks.append((len(parts), idx, size))
            parts.append(np.zeros_like(idx) if size == 0 else np.mod(idx, size))
            dim += 1
        else:
            raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
    if bounds and checks and _result_size(shape, parts, indices_only=True):
        # indices that broadcast to something are checked against a dim of size 0 even when slices
        # leave nothing to pick; their bounds only when something is picked
        if any(size == 0 and idx.size for _, idx, size in checks):
            raise TorchIndexError("index is out of bounds for dimension with size 0")
        if _result_size(shape, parts):
            _check_bounds(parts, checks)
            for i, idx, _ in checks:
                parts[i] = idx
    return tuple(parts)


def _result_size(shape: tuple, parts: list, indices_only: bool = False) -> int:
    """How many elements indexing with ``parts`` picks (without indexing anything)."""
    rest, index_shapes, d = 1, [], 0
    for p in parts:
        if isinstance(p, slice):
            rest *= 1 if indices_only else shape[d]
            d += 1
        elif p.dtype == np.bool_:
            index_shapes.append((int(np.count_nonzero(p)),))
            d += p.ndim
        else:
            index_shapes.append(p.shape)
            d += 1
    try:
        return rest * int(np.prod(np.broadcast_shapes(*index_shapes)))
    except ValueError:
        return 1


def _check_bounds(parts: list, checks: list) -> None:
    """PyTorch's index kernel: element by element of the broadcast indices, each indexer in turn
    (a mask is one indexer per dim); "dimension" in the message counts indexers."""
    if not checks:
        return
    indexers = []  # (number of the indexer, index array or None for a mask's)
    for i, part in enumerate(parts):
        if isinstance(part, np.ndarray) and part.dtype == np.bool_:
            indexers.extend((None, None) for _ in range(max(part.ndim, 1)))
        elif isinstance(part, np.ndarray):
            indexers.append((i, None))
    try:
        target = np.broadcast_shapes(*[idx.shape for _, idx, _ in checks])
    except ValueError:
        return  # the broadcast check reports this
    if int(np.prod(target)) == 0 or any(s == 0 for s in target):
        return  # nothing is indexed, so nothing is checked
    bad_at = []
    for j, (i, _) in enumerate(indexers):
        for pi, idx, size in checks:
            if pi == i:
                if size == 0:
                    raise TorchIndexError("index is out of bounds for dimension with size 0")
                full = np.broadcast_to(idx, target).reshape(-1)
                bad = np.flatnonzero((full >= size) | (full < -size))
                if bad.size:
                    bad_at.append((int(bad[0]), j, int(full[bad[0]]), size))
    if bad_at:
        _, j, value, size = min(bad_at)
        raise TorchIndexError(f"index {value} is out of bounds for dimension {j} with size {size}")


def _check_broadcastable(advanced: list[tuple[int, Tensor]]) -> None:
    # A mask stands for its nonzero() indices: one index tensor of [count] per mask dim.
    shapes: list[tuple] = []
    for _, t in advanced:
        if t._dtype is dtypes.bool_:
            shapes += [(int(np.count_nonzero(t._data)),)] * max(t.ndim, 1)
        else:
            shapes.append(tuple(t.shape))
    try:
        broadcast_all(shapes)
    except TorchRuntimeError:
        raise TorchIndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(list_str(s) for s in shapes)) from None


# -- index / index_put ------------------------------------------------------------------------

def _index_forward(b: dict) -> Any:
    t = b["self"]
    _numpy_index(t.shape, b["indices"], bounds=False)  # the masks' shapes are checked first
    _check_broadcastable(b["indices"])
    result = t._data[_numpy_index(t.shape, b["indices"])]
    if t._data.flags.c_contiguous and result.strides != _c_strides(result):
        # PyTorch's index kernel writes a contiguous tensor's result contiguously; NumPy puts the
        # indexed dims outermost in memory (strides show it, and matmul's folding depends on them,
        # size-1 dims included)
        result = result.copy(order="C")
    return result


def _c_strides(a: np.ndarray) -> tuple[int, ...]:
    strides, step = [], a.itemsize
    for n in reversed(a.shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _index_backward(g: Tensor, s: Any) -> Tensor:
    zeros = Tensor._make(np.zeros(s.self_sym_sizes, dtype=g._dtype.np), g._dtype)
    return run(INDEX_PUT, {"self": zeros, "indices": s.indices, "values": g, "accumulate": True})


def _exposed_indices(s: dict) -> tuple:
    """``_saved_indices`` as PyTorch's node shows it: one entry per dim up to the last indexed
    one, None where a dim is not indexed."""
    entries = s["indices"]
    out: list = [None] * (max(dim for dim, _ in entries) + 1) if entries else []
    for dim, saved in entries:
        out[dim] = saved.unpack()
    return tuple(out)


INDEX = defop("index", "index(Tensor input, any indices)", _index_forward, node="IndexBackward0",
              function=False, method=False, exposes=("self_sym_sizes",),
              exposed_values={"indices": _exposed_indices},
              derivs={"self": d(rule="zeros of self's shape, grad added at the indexed places")(_index_backward)})


def _index_put_forward(b: dict) -> Any:
    """index_put_ with PyTorch's checks in its order: the expanded-target warning; one mask with a
    one-element value goes to masked_fill_ (any dtype, no overlap checks); else no overlap with the
    value or an index, the masks' shapes, the indices' broadcast, the value's shape, its dtype,
    and last the bounds (checked by the kernel)."""
    t, values, indices = b["self"], b["values"], b["indices"]
    expanded = b.get("_inplace") and repeats(t._data)
    warn = _warn_expanded if expanded else (lambda *a: None)
    warn("index_put_", "indices] = tensor", 976)
    masked_fill = (not b["accumulate"] and values.numel() == 1 and len(indices) == 1
                   and indices[0][1]._dtype is dtypes.bool_)
    if masked_fill:
        _numpy_index(t.shape, indices, bounds=False)  # the mask's shape
        warn("masked_fill_", "mask] = scalar", 2450)
        if b.get("_inplace") and overlap_status(t._data, indices[0][1]._data) == "partial":
            # masked_fill_ refuses a mask that partly is the written tensor
            raise TorchRuntimeError(PARTIAL_OVERLAP_MESSAGE)
    elif b.get("_inplace") and any(_overlaps(t._data, x._data) for x in [values] + [i for _, i in indices]):
        raise TorchRuntimeError(PARTIAL_OVERLAP_MESSAGE)
    _numpy_index(t.shape, indices, bounds=False)  # the masks' shapes
    _check_broadcastable(indices)
    out = t._data.copy()
    try:
        target = out[_numpy_index(t.shape, indices, bounds=False)].shape
    except IndexError:  # an index into a dim of size 0: PyTorch's bounds message
        _numpy_index(t.shape, indices)
        raise
    if not is_expandable_to(values.shape, target):
        raise TorchRuntimeError(
            f"shape mismatch: value tensor of shape {list_str(values.shape)} cannot be broadcast to "
            f"indexing result of shape {list_str(target)}")
    if values._dtype is not t._dtype and not values._wrapped and not masked_fill:
        raise TorchRuntimeError(
            f"Index put requires the source and destination dtypes match, got {t._dtype.legacy_name} for the "
            f"destination and {values._dtype.legacy_name} for the source.")
    where = _numpy_index(t.shape, indices)
    v = values._data.astype(t._dtype.np, copy=False)
    if b["accumulate"]:
        np.add.at(out, where, v)
    else:
        out[where] = v
    return out


def _overlaps(a: np.ndarray, b: np.ndarray) -> bool:
    """PyTorch's assert_no_overlap: partial or full overlap (an expanded tensor is "too hard")."""
    return overlap_status(a, b) in ("partial", "full")


def _warn_expanded(op: str, example: str, line: int) -> None:
    warn(EXPANDED_WARNING.format(op, example, line))


EXPANDED_WARNING = ("Use of {0} on expanded tensors is deprecated. Please clone() the tensor before performing this "
                    "operation. This also applies to advanced indexing e.g. tensor[{1} (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:{2}.)")


def _index_put_values_grad(g: Tensor, s: Any) -> Tensor:
    return run(INDEX, {"self": g, "indices": s.indices})


def _index_put_self_grad(g: Tensor, s: Any) -> Tensor:
    if s.accumulate:
        return g
    return run(INDEX_PUT, {"self": g, "indices": s.indices, "values": wrap_scalar(0.0),
                           "accumulate": False})


INDEX_PUT = defop("index_put", "index_put(Tensor input, any indices, Tensor values, bool accumulate=False)",
                  _index_put_forward, node="IndexPutBackward0", inputs=("self", "values"),
                  exposes=("accumulate",), exposed_values={"indices": _exposed_indices},
                  numbers_as_tensors=True, function=False, method=False,
                  # (its own overlap checks, in the forward; PyTorch warns when self is expanded)
                  inplace_broadcasts=False, inplace_memory=SHARED,
                  derivs={"self": d(rule="grad, 0 at the indexed places (all of grad if accumulate)")(
                      _index_put_self_grad),
                          "values": d(rule="grad[indices]: grad at the indexed places")(_index_put_values_grad)})


_INDEX_PUT_ARGS = LazyParser("index_put_(Tensor input, Tensor[] indices, Tensor values, bool accumulate=False)",
                             method=True)


@signed(_INDEX_PUT_ARGS, method=True)
def _index_put_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.index_put_(indices, values, accumulate=False)``: PyTorch's tuple of index tensors (a
    mask for as many dims as it has) becomes the (dim, index) pairs used inside."""
    _, b = _INDEX_PUT_ARGS.parse((self,) + args, kwargs)
    pairs, dim = [], 0
    for t in b["indices"]:
        pairs.append((dim, t))
        dim += t.ndim if t._dtype is dtypes.bool_ else 1
    if dim > self.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {self.ndim} (got {dim})")
    return run_inplace(INDEX_PUT, {"self": self, "indices": pairs, "values": b["values"],
                                   "accumulate": b["accumulate"]})


CATALOG.register(_index_put_method, "index_put_", method=True)


def getitem(self: Tensor, index: Any) -> Tensor:
    view, advanced = apply_indexing(self, index)
    if not advanced:
        return view
    return run(INDEX, {"self": view, "indices": advanced})


def setitem(self: Tensor, index: Any, value: Any) -> None:
    """``self[index] = value`` as PyTorch's ``set_item``: a number becomes a 0-dim tensor of
    self's dtype; basic indices give a view written by ``copy_to``, advanced ones ``index_put_``."""
    if isinstance(value, (int, float, bool)) and not isinstance(value, Tensor):
        src = Tensor._make(np.array(value).astype(self._dtype.np), self._dtype)
    elif isinstance(value, Tensor):
        src = value
    else:
        try:
            src = new_tensor(value, dtype=self._dtype)
        except (TypeError, ValueError):
            raise TorchTypeError(
                f"can't assign a {type(value).__name__} to a torch.{self._dtype.legacy_name}Tensor") from None
    # The one-item fast paths of set_item: False writes nothing, ... writes self itself.
    if index is False:
        return
    if index is Ellipsis:
        return _copy_to(self, src)
    if index is None or index is True:
        return _copy_to(self.unsqueeze(0), src)
    view, advanced = apply_indexing(self, index, setting=True)
    if not advanced:
        return _copy_to(view, src)
    stripped = _strip_leading_ones(src.shape)
    if stripped != tuple(src.shape):
        src = src.view(stripped)
    run_inplace(INDEX_PUT, {"self": view, "indices": advanced, "values": src, "accumulate": False})


def _strip_leading_ones(shape: Any) -> tuple:
    shape = tuple(shape)
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def _copy_to(dst: Tensor, src: Tensor) -> None:
    """PyTorch's ``copy_to``: copy_ for equal shapes, fill_ for a 0-dim value, else copy_
    from the value viewed without its leading ones and expanded to the target."""
    if tuple(dst.shape) == tuple(src.shape):
        dst.copy_(src)
    elif src.ndim == 0:
        dst.fill_(src)
    else:
        src = src.view(_strip_leading_ones(src.shape))
        if tuple(src.shape) != tuple(dst.shape):
            src = src.expand(tuple(dst.shape))
        dst.copy_(src)



CATALOG.register(getitem, operators=("__getitem__",))
CATALOG.register(setitem, operators=("__setitem__",))
