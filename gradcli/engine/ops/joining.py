"""Joining and splitting: ``cat`` (``concat``, ``concatenate``, ``hstack``, ``vstack``),
``stack``, and the multi-output views ``split``, ``chunk``, ``unbind``.

``cat``'s result has PyTorch's memory format (contiguous unless every input is
channels last); ``stack`` is ``cat`` and a view, as in PyTorch, so its layout
and strides are ``cat``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.limits import check_count, check_tensors
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.promotion import promote
from ..errors import TorchIndexError, TorchRuntimeError, TorchValueError
from ..shape_rules import list_str, wrap_dim
from ..tensor import Tensor
from .shape import unsqueeze_array

CATALOG = Catalog(jvp=LINEAR, vmap="dims")
defop = CATALOG.defop

# -- cat / stack -----------------------------------------------------------------------------

def _cat_forward(b: dict) -> Any:
    tensors = b["tensors"]
    if not tensors:
        raise TorchValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:  # checked for every tensor before anything else
            raise TorchRuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # 1-d empty tensors are skipped, as in PyTorch's legacy behaviour.
    ref = next((t for t in tensors if not (t.ndim == 1 and t.numel() == 0)), None)
    if ref is None and all(t.ndim == 1 for t in tensors):
        return np.zeros(0, dtype=promote(*tensors).np)  # all skipped: no dim to check
    ref = ref if ref is not None else tensors[0]
    nd = ref.ndim
    if nd == 0:
        raise TorchRuntimeError(
            "zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = wrap_dim(b["dim"], nd)
    rt = promote(*tensors)
    # the result, and the copies of the inputs whose dtype changes first (an expanded one's too)
    check_count(sum(t._data.size * (2 if t._dtype is not rt else 1) for t in tensors), rt.itemsize)
    parts = []
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.numel() == 0 and ref is not t:
            continue
        if t.ndim != nd:
            raise TorchRuntimeError(f"Tensors must have same number of dimensions: got {nd} and {t.ndim}")
        for k in range(nd):
            if k != dim and t.shape[k] != ref.shape[k]:
                raise TorchRuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {ref.shape[k]} but "
                    f"got size {t.shape[k]} for tensor number {i} in the list.")
        parts.append(t._data.astype(rt.np, copy=False))
    shape = list(ref.shape)
    shape[dim] = sum(p.shape[dim] for p in parts)
    out = _empty_in_format(tuple(shape), rt.np, _cat_memory_format(tensors))
    return np.concatenate(parts, axis=dim, out=out)


# PyTorch's suggest_memory_format looks for these stride orders (innermost first) in 4-d and
# 5-d tensors; cat's result takes the format all its inputs share, else it is contiguous
# (NumPy's concatenate would follow its inputs' layout instead).
_LAST_ORDERS = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def _memory_format(t: Tensor) -> int | None:
    """4 or 5 for a channels-last (3d) layout, None for contiguous."""
    order = _LAST_ORDERS.get(t.ndim)
    if order is None:
        return None
    sizes = t.shape
    strides = [st // t._data.itemsize for st in t._data.strides]
    if strides[1] == 0:
        return None
    least = 0
    for k in order:
        if sizes[k] == 0 or strides[k] < least:
            return None
        if k == 0 and least == strides[1]:
            return None  # ambiguous (N111 and the like): contiguous
        least = strides[k] * (sizes[k] if sizes[k] > 1 else 1)
    return t.ndim


def _cat_memory_format(tensors: list) -> int | None:
    found = None
    for t in tensors:
        f = _memory_format(t)
        if f is None or (found is not None and f != found):
            return None
        found = f
    return found


def _empty_in_format(shape: tuple, dtype: Any, fmt: int | None) -> np.ndarray:
    if fmt is None:
        return np.empty(shape, dtype=dtype)
    # channels last: C innermost, then the spatial dims, then N
    perm = (0,) + tuple(range(2, len(shape))) + (1,)
    back = tuple(int(i) for i in np.argsort(perm))
    return np.empty(tuple(shape[i] for i in perm), dtype=dtype).transpose(back)


def _cat_backward(g: Tensor, s: Any) -> list:
    if all(len(shape) == 1 and shape[0] == 0 for shape in s.tensors_sym_sizes):
        return [g] * len(s.tensors_sym_sizes)  # all skipped: an empty gradient each, no dim to check
    dim = wrap_dim(s.dim, g.ndim)
    grads = []
    start = 0
    for shape in s.tensors_sym_sizes:
        if len(shape) == 1 and shape[0] == 0 and g.ndim != 1:
            grads.append(None)
            continue
        n = shape[dim]
        grads.append(g.narrow(dim, start, n))
        start += n
    return grads


CAT = defop("cat", "cat(Tensor[] tensors, int dim=0, *, Tensor? out=None)", _cat_forward, node="CatBackward0",
      inputs=("tensors",), method=False, exposes=("dim",), aliases=("concat", "concatenate"),
      derivs={"tensors": d(rule="grad narrowed along dim to where tensors[i] was placed")(_cat_backward)})


def _stack_forward(b: dict) -> Any:
    tensors = b["tensors"]
    if not tensors:
        raise TorchRuntimeError("stack expects a non-empty TensorList")
    first = tensors[0].shape
    wrap_dim(b["dim"], len(first) + 1)  # the dim is checked before the sizes
    for i, t in enumerate(tensors):
        if t.shape != first:
            raise TorchRuntimeError(
                f"stack expects each tensor to be equal size, but got {list_str(first)} at entry 0 and "
                f"{list_str(t.shape)} at entry {i}")
    dim = wrap_dim(b["dim"], len(first) + 1)
    if dim < len(first):
        # PyTorch's stack: cat along dim, then a view that splits it (so the layout is cat's)
        flat = _cat_forward({"tensors": tensors, "dim": dim})
        return flat.reshape(first[:dim] + (len(tensors),) + first[dim:])
    return _cat_forward({"tensors": [_unsqueezed(t, dim) for t in tensors], "dim": dim})


def _unsqueezed(t: Tensor, dim: int) -> Tensor:
    """A graph-free t.unsqueeze(dim) with PyTorch's stride for the new dim."""
    return Tensor._make(unsqueeze_array(t._data, dim), t._dtype)


STACK = defop("stack", "stack(Tensor[] tensors, int dim=0, *, Tensor? out=None)", _stack_forward,
      node="StackBackward0", inputs=("tensors",), method=False, exposes=("dim",),
      derivs={"tensors": d(rule="grad.unbind(dim)[i]: its i-th slice along dim")(lambda g, s: list(g.unbind(s.dim)))})


def _hstack(tensors: Any) -> Tensor:
    ts = list(tensors)
    return CAT(ts, 0 if ts and ts[0].ndim == 1 else 1)


def _vstack(tensors: Any) -> Tensor:
    return CAT([t.reshape(1, -1) if t.ndim <= 1 else t for t in tensors], 0)


# -- split / chunk / unbind (multi-output views) -----------------------------------------------

def _split_sizes(size: int, split_size: int) -> list[int]:
    if split_size == 0 and size != 0:
        raise TorchRuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    if split_size < 0:
        raise TorchRuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0:
        return [0]
    n = max((size + split_size - 1) // split_size, 1)
    check_tensors(n)
    return [min(split_size, size - i * split_size) for i in range(n)]


def _pieces(a: np.ndarray, dim: int, sizes: list[int]) -> tuple:
    out, start = [], 0
    for n in sizes:
        index = [slice(None)] * a.ndim
        index[dim] = slice(start, start + n)
        out.append(a[tuple(index)])
        start += n
    return tuple(out)


def _split_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.ndim == 0:
        raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(b["dim"], a.ndim)
    size = b["split_size"]
    if isinstance(size, tuple):
        if sum(size) != a.shape[dim]:
            raise TorchRuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {a.shape[dim]} (input tensor's size "
                f"at dimension {b['dim']}), but got split_sizes={list_str(size)}")
        check_tensors(len(size))
        return _pieces(a, dim, list(size))
    return _pieces(a, dim, _split_sizes(a.shape[dim], size))


def _cat_grads(grads: list, s: Any) -> Tensor:
    return CAT(grads, s.dim)


SPLIT = defop("split", ["split(Tensor input, int split_size, int dim=0)",
                "split(Tensor input, int[] split_size, int dim=0)"], _split_forward,
      node=lambda b: "SplitWithSizesBackward0" if isinstance(b["split_size"], tuple) else "SplitBackward0",
      view=True, exposes={"SplitBackward0": ("dim", "self_sym_sizes", "split_size"),
                          "SplitWithSizesBackward0": ("dim", "self_sym_sizes", "split_sizes")},
      derivs={"self": d(rule="cat(the pieces' grads, dim), zeros for a piece with none")(_cat_grads)})


def _chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple:
    if self.ndim == 0:
        raise TorchRuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self.shape[wrap_dim(dim, self.ndim)]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        check_tensors(chunks)
        return self.split([0] * chunks, dim)  # PyTorch's split_with_sizes of zeros
    return self.split(split_size, dim)


def _unbind_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.ndim == 0:
        raise TorchIndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(b["dim"], a.ndim)
    check_tensors(a.shape[dim])   # (iterating a tensor unbinds it: a million 0-d tensors is a lot of memory)
    return tuple(a[(slice(None),) * dim + (i, Ellipsis)] for i in range(a.shape[dim]))


UNBIND = defop("unbind", "unbind(Tensor input, int dim=0)", _unbind_forward, node="UnbindBackward0", view=True,
      exposes=("dim",),
      derivs={"self": d(rule="stack(the outputs' grads, dim), zeros for one with none")(lambda g, s: STACK(g, s.dim))})



CATALOG.register(_hstack, "hstack", torch=True, sigs="hstack(Tensor[] tensors)")
CATALOG.register(_vstack, "vstack", torch=True, sigs="vstack(Tensor[] tensors)")
CATALOG.register(_chunk, "chunk", torch=True, method=True, sigs="chunk(Tensor input, int chunks, int dim=0)")
