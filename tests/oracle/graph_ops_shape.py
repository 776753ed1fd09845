"""Random steps for shape ops, indexing and index assignment, conversions and in-place writes."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from graph_gen import Gen, torch
from graph_program import Const, DType, Ref, Step


def _step(kind: str, name: str, args: tuple, kwargs: dict | None = None, target: Ref | None = None,
          g: Gen | None = None, exact: bool = True, no_grad: float | None = None) -> Step:
    p = no_grad if no_grad is not None else (0.35 if target is not None else 0.04)
    return Step(kind, name, args, kwargs or {}, no_grad=g is not None and g.coin(p), target=target,
                exact_op=exact)


# -- views and reshapes ------------------------------------------------------------------------------

def _factor_shape(g: Gen, n: int) -> tuple:
    """A random shape with ``n`` elements (sometimes with -1, rarely a wrong one)."""
    if n == 0:
        return g.choice([(0,), (0, 2), (2, 0), (-1,)])
    dims: list[int] = []
    rest = n
    for _ in range(g.integer(0, 3)):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = g.choice(divisors)
        dims.append(d)
        rest //= d
    dims.append(rest)
    dims = [d for d in dims if d != 1 or g.coin(0.4)] or [n]
    shape = list(g.draw(st.permutations(dims)))
    if shape and g.coin(0.2):
        shape[g.integer(0, len(shape) - 1)] = -1
    if g.coin(0.04):
        shape.append(g.integer(2, 3))
    if n == 1 and g.coin(0.3):
        return ()
    return tuple(shape)


def gen_reshape(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    v = g.value(x)
    shape = _factor_shape(g, v.numel())
    form = g.choice(["reshape", "reshape_fn", "reshape_args", "view", "view_args", "flatten", "view_as"])
    if form == "reshape":
        return _step("method", "reshape", (x, shape), g=g)
    if form == "reshape_fn":
        return _step("fn", "reshape", (x, shape), g=g)
    if form == "reshape_args" and shape:
        return _step("method", "reshape", (x,) + shape, g=g)
    if form in ("view", "view_args"):
        return _step("method", "view", (x, shape) if form == "view" or not shape else (x,) + shape, g=g)
    if form == "view_as":
        y = g.pick(lambda t: t.numel() == v.numel())
        return _step("method", "view_as", (x, y), g=g) if y is not None else None
    nd = v.ndim
    if g.coin(0.5) or nd == 0:
        return _step(g.choice(["method", "fn"]), "flatten", (x,), g=g)
    return _step("method", "flatten", (x, g.dim(nd), g.dim(nd)), g=g)


def gen_squeeze(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    nd = g.value(x).ndim
    form = g.choice(["squeeze", "squeeze_dim", "squeeze_dims", "unsqueeze", "unsqueeze"])
    if form == "squeeze":
        return _step(g.choice(["method", "fn"]), "squeeze", (x,), g=g)
    if form == "squeeze_dim":
        return _step(g.choice(["method", "fn"]), "squeeze", (x, g.dim(nd)), g=g)
    if form == "squeeze_dims":
        return _step("method", "squeeze", (x, g.dims(nd)), g=g)
    return _step(g.choice(["method", "fn"]), "unsqueeze", (x, g.dim(nd + 1)), g=g)


def gen_permute(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    nd = g.value(x).ndim
    perm = tuple(g.draw(st.permutations(range(nd))))
    if perm and g.coin(0.3):
        perm = tuple(p - nd if g.coin(0.5) else p for p in perm)
    if g.coin(0.04):
        perm = perm + (0,)
    form = g.choice(["method", "args", "fn"])
    if form == "args" and perm:
        return _step("method", "permute", (x,) + perm, g=g)
    return _step("fn" if form == "fn" else "method", "permute", (x, perm), g=g)


def gen_expand(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    shape = tuple(g.value(x).shape)
    sizes = [(g.integer(1, 3) if g.coin(0.7) else -1) if s == 1 else (s if g.coin(0.8) else -1) for s in shape]
    lead = [g.integer(1, 3) for _ in range(g.integer(0, 2 if len(shape) < 3 else 0))]
    if g.coin(0.04) and sizes:
        sizes[0] = sizes[0] + 1 if sizes[0] > 1 else 2 if shape[0] not in (1, 2) else 3
    full = tuple(lead + sizes)
    form = g.choice(["args", "tuple", "as", "repeat"])
    if form == "as":
        y = g.pick(lambda t: t.ndim >= len(shape))
        return _step("method", "expand_as", (x, y), g=g) if y is not None else None
    if form == "repeat":
        reps = tuple(g.integer(1, 2) for _ in range(len(shape) + g.integer(0, 1)))
        if g.coin(0.04):
            reps = reps[1:]
        return _step("method", "repeat", (x, reps) if reps and g.coin(0.5) else (x,) + reps, g=g)
    if form == "args" and full:
        return _step("method", "expand", (x,) + full, g=g)
    return _step("method", "expand", (x, full), g=g)


def gen_flip_narrow(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    v = g.value(x)
    nd = v.ndim
    form = g.choice(["flip", "narrow", "tril", "triu", "contiguous", "clone"])
    if form == "flip":
        return _step(g.choice(["method", "fn"]), "flip", (x, g.dims(nd)), g=g)
    if form == "narrow":
        dim = g.dim(nd)
        size = v.shape[dim] if nd and -nd <= dim < nd else 1
        start = g.integer(-size, size)
        length = g.integer(0, max(size - start % max(size, 1), 0)) if g.coin(0.95) else size + 1
        return _step(g.choice(["method", "fn"]), "narrow", (x, dim, start, length), g=g)
    if form in ("tril", "triu"):
        k = g.choice([0, 0, 1, -1, 2])
        if g.coin(0.2):
            return _step("method", form + "_", (x, k), target=x, g=g)
        return _step(g.choice(["method", "fn"]), form, (x, k), g=g)
    if form == "contiguous":
        return _step("method", "contiguous", (x,), g=g)
    return _step(g.choice(["method", "fn"]), "clone", (x,), g=g)


def _index_array(g: Gen, size: int, shape: tuple) -> np.ndarray:
    n = int(np.prod(shape))
    lo, hi = (-size, size - 1) if size else (0, 0)
    values = [g.integer(lo, hi) if size else 0 for _ in range(n)]
    if size and g.coin(0.03) and n:
        values[0] = size  # out of range
    return np.array(values, dtype=np.int64).reshape(shape)


def gen_select_gather(g: Gen) -> Step | None:
    x = g.pick(lambda t: t.ndim >= 1)
    if x is None:
        return None
    v = g.value(x)
    nd = v.ndim
    dim = g.dim(nd)
    size = v.shape[dim] if -nd <= dim < nd else 1
    if g.coin(0.5):
        idx = _index_array(g, size, (g.integer(0, 4),))
        idx = np.where(idx < 0, idx + size, idx)  # index_select wants non-negative indices
        return _step(g.choice(["method", "fn"]), "index_select", (x, dim, Const(idx)), g=g)
    shape = tuple(g.integer(1, s) if s else 0 for s in v.shape)
    if -nd <= dim < nd:
        shape = shape[:dim % nd] + (g.integer(1, 4),) + shape[dim % nd + 1:]
    idx = _index_array(g, size, shape)
    idx = np.where(idx < 0, idx + size, idx)
    return _step(g.choice(["method", "fn"]), "gather", (x, dim, Const(idx)), g=g)


# -- joining and splitting ---------------------------------------------------------------------------

def gen_cat_stack(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    v = g.value(x)
    shape = tuple(v.shape)
    name = g.choice(["cat", "cat", "stack"])
    nd = len(shape) + (1 if name == "stack" else 0)
    dim = g.dim(nd)
    parts: list[Any] = [x]
    for _ in range(g.integer(1, 2)):
        want = list(shape)
        if name == "cat" and want and -len(want) <= dim < len(want):
            want[dim] = g.integer(0, 3) if g.coin(0.3) else want[dim]
        want_t = tuple(want)
        other = g.pick(lambda t: tuple(t.shape) == want_t)
        if other is None or g.coin(0.3):
            dtype = str(v.dtype).replace("torch.", "") if g.coin(0.85) else g.choice(["float64", "int64", "bool"])
            other = g.const(want_t if g.coin(0.97) else want_t + (1,), dtype)
        parts.append(other)
    order = g.draw(st.permutations(parts))
    if g.coin(0.2):
        return _step("fn", name, (list(order),), {"dim": dim}, g=g)
    return _step("fn", name, (tuple(order) if g.coin(0.3) else list(order), dim), g=g)


def gen_split(g: Gen) -> Step | None:
    x = g.pick(lambda t: t.ndim >= 1)
    if x is None:
        return None
    v = g.value(x)
    nd = v.ndim
    dim = g.dim(nd)
    size = v.shape[dim] if -nd <= dim < nd else 1
    form = g.choice(["split", "split_sizes", "chunk", "unbind"])
    if form == "split":
        return _step(g.choice(["method", "fn"]), "split", (x, g.integer(1, max(size, 1)), dim), g=g)
    if form == "split_sizes":
        sizes: list[int] = []
        rest = size
        while rest > 0:
            s = g.integer(0 if g.coin(0.1) else 1, rest)
            sizes.append(s)
            rest -= s
            if len(sizes) > 4:
                break
        if g.coin(0.05):
            sizes.append(1)
        return _step("method", "split", (x, sizes, dim), g=g)
    if form == "chunk":
        return _step(g.choice(["method", "fn"]), "chunk", (x, g.integer(1, 3), dim), g=g)
    return _step(g.choice(["method", "fn"]), "unbind", (x, dim), g=g)


# -- indexing -----------------------------------------------------------------------------------------

def _basic_item(g: Gen, size: int | None) -> Any:
    r = g.integer(0, 99)
    if r < 30:
        if size is None:
            # an int index into a 0-dim tensor: PyTorch's applySelect reads a size the tensor
            # does not have (undefined behaviour) unless the index is 0; excluded
            return 0
        if size == 0 or g.coin(0.03):
            return size
        return g.integer(-size, size - 1)
    if r < 75:
        start = g.choice([None, 0, 1, -1, -2, 2])
        stop = g.choice([None, None, 1, 2, -1, 3, 5])
        step = g.choice([None, None, 1, 2]) if g.coin(0.97) else g.choice([0, -1])
        return slice(start, stop, step)
    if r < 90:
        return None
    return Ellipsis


def _advanced_item(g: Gen, shape: tuple, d: int) -> Any:
    size = shape[d] if d < len(shape) else 1
    r = g.integer(0, 99)
    if r < 45:
        return Const(_index_array(g, size, g.choice([(g.integer(0, 4),), (2, 2), (1,), ()])))
    if r < 60:
        return [g.integer(-size, size - 1) if size else 0 for _ in range(g.integer(1, 3))]
    mask_nd = g.integer(1, max(len(shape) - d, 1))
    mask_shape = tuple(shape[d:d + mask_nd])
    found = g.pick(lambda t: t.dtype == torch.bool and tuple(t.shape) == mask_shape and t.ndim >= 1)
    if found is not None and g.coin(0.6):
        return found
    return Const(g.array(mask_shape, "bool"))


def _draw_index(g: Gen, shape: tuple) -> Any:
    items: list[Any] = []
    d = 0
    n = g.integer(1, max(len(shape), 1) + (1 if g.coin(0.1) else 0))
    advanced = g.coin(0.35)
    for _ in range(n):
        if advanced and g.coin(0.5):
            item = _advanced_item(g, shape, d)
            advanced = g.coin(0.3)
        else:
            item = _basic_item(g, shape[d] if d < len(shape) else (None if not shape else 1))
        if item is Ellipsis and any(i is Ellipsis for i in items) and g.coin(0.9):
            item = slice(None)
        items.append(item)
        if item is not None and item is not Ellipsis:
            d += 1
    if len(items) == 1 and g.coin(0.7):
        return items[0]
    return tuple(items)


def gen_getitem(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    index = _draw_index(g, tuple(g.value(x).shape))
    return _step("getitem", "getitem", (x, index), g=g)


def gen_setitem(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    v = g.value(x)
    index = _draw_index(g, tuple(v.shape))
    try:
        target_shape = tuple(v.detach()[g.runner.resolve(index)].shape)
    except Exception:  # noqa: BLE001 - a bad index: the step will raise, which is fine
        target_shape = ()
    r = g.integer(0, 99)
    if r < 35:
        value: Any = g.scalar()
    elif r < 75:
        shape = g.broadcastable(target_shape) if g.coin(0.9) else (g.integer(2, 5),)
        value = g.pick(lambda t: tuple(t.shape) == shape)
        if value is None:
            value = g.const(shape, g.choice(["float32", "float32", "float64", "int64"]))
    else:
        value = g.const(g.broadcastable(target_shape), str(v.dtype).replace("torch.", ""))
    if isinstance(value, Ref) and value.index == x.index and value.item == x.item:
        return None
    return _step("setitem", "setitem", (x, index, value), target=x, g=g)


# -- conversions, detach, grad flags, fills -------------------------------------------------------------

def gen_convert(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    name = g.choice(["float", "double", "long", "int", "bool", "to", "to", "detach", "data"])
    if name in ("long", "int", "bool") or name == "to":
        a = g.inexact(x)
        if a is not None and (not np.all(np.isfinite(a)) or g.near_integer(x) or g.near(x)):
            return None
        if g.value(x).is_floating_point() and not np.all(np.isfinite(g.value(x).detach().numpy())):
            return None
    if name == "to":
        return _step("method", "to", (x, DType(g.choice(["float32", "float64", "int64", "int32", "bool"]))), g=g)
    if name == "data":
        return _step("attr", "data", (x,), g=g)
    return _step("method", name, (x,), g=g)


def gen_grad_flags(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    form = g.choice(["requires_grad_", "requires_grad_", "set_requires_grad", "retain_grad", "retain_grad",
                     "detach_"])
    if form == "requires_grad_":
        args = (x,) if g.coin(0.7) else (x, g.coin(0.5))
        return _step("method", "requires_grad_", args, g=g, no_grad=0.1)
    if form == "set_requires_grad":
        return _step("call", "set_requires_grad", (x, g.coin(0.7)), g=g, no_grad=0.1)
    if form == "detach_":
        return _step("call", "detach_", (x,), target=x, g=g, no_grad=0.1)
    return _step("call", "retain_grad", (x,), g=g, no_grad=0.1)


def gen_fill(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    form = g.choice(["zero_", "fill_", "fill_tensor", "copy_"])
    if form == "zero_":
        return _step("method", "zero_", (x,), target=x, g=g)
    if form == "fill_":
        return _step("method", "fill_", (x, g.scalar()), target=x, g=g)
    if form == "fill_tensor":
        value = g.pick(lambda t: t.ndim == 0) if g.coin(0.6) else None
        if value is None:
            value = g.const(() if g.coin(0.9) else (2,), g.choice(["float32", "float64", "int64"]))
        return _step("method", "fill_", (x, value), target=x, g=g)
    src = g.operand(g.value(x), scalars=False)
    if isinstance(src, Ref) and src != x and _shares(g.value(x), g.value(src)):
        # PyTorch's copy_ reads an overlapping source while writing it (element order decides);
        # gradcli copies from a snapshot.  Excluded.
        return None
    return _step("method", "copy_", (x, src), target=x, g=g)


def _shares(a: Any, b: Any) -> bool:
    return a.numel() > 0 and b.numel() > 0 and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


TABLE: list[tuple[int, Callable[[Gen], Step | None]]] = [
    (6, gen_reshape), (4, gen_squeeze), (3, gen_permute), (4, gen_expand), (5, gen_flip_narrow),
    (3, gen_select_gather), (4, gen_cat_stack), (3, gen_split), (9, gen_getitem), (7, gen_setitem),
    (4, gen_convert), (3, gen_grad_flags), (4, gen_fill),
]
