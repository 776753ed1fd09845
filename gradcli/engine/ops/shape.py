"""Shape ops: views (view, squeeze, permute, expand, narrow, split, ...) and copies
(repeat, cat, stack, flip, tril/triu, diag).

View ops return NumPy views, so writes through them reach the base tensor;
their gradients put the gradient back into the input's shape (the inverse
movement, as tinygrad's movement ops do).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TorchIndexError, TorchRuntimeError, TorchValueError
from ..tensor import Tensor
from .pointwise import zeros_like
from .registry import FUNCTIONS, OPS, d, defop, run
from ..shape_rules import list_str, numel, type_string, wrap_dim, wrap_dims


# -- view / reshape ----------------------------------------------------------------------------

def infer_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    """Resolve one -1 in ``shape`` for ``size`` elements, with PyTorch's errors."""
    if shape.count(-1) > 1:
        raise TorchRuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise TorchRuntimeError(f"invalid shape dimension {s}")
    known = numel([s for s in shape if s != -1])
    if -1 in shape:
        if known == 0 and size == 0:
            raise TorchRuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list_str(shape)} because the unspecified "
                "dimension size -1 can be any value and is ambiguous")
        if known == 0 or size % known:
            raise TorchRuntimeError(f"shape '{list_str(shape)}' is invalid for input of size {size}")
        return tuple(size // known if s == -1 else s for s in shape)
    if known != size:
        raise TorchRuntimeError(f"shape '{list_str(shape)}' is invalid for input of size {size}")
    return tuple(shape)


def _view_array(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """A NumPy view of ``a`` with ``shape``, or None when the strides do not allow one."""
    try:
        return np.reshape(a, shape, copy=False)
    except ValueError:
        return None


def _view_forward(b: dict) -> Any:
    a = b["self"]._data
    shape = infer_shape(b["size"], a.size)
    v = _view_array(a, shape)
    if v is None:
        raise TorchRuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return v


_back_to_input = d()(lambda g, s: g.reshape(s.self_sym_sizes))

VIEW = defop("view", "view(Tensor input, int[] size)", _view_forward, node="ViewBackward0",
             view=True, function=False, exposes=("self_sym_sizes",), derivs={"self": _back_to_input})
UNSAFE_VIEW = defop("_unsafe_view", "_unsafe_view(Tensor input, int[] size)",
                    lambda b: b["self"]._data.reshape(infer_shape(b["size"], b["self"]._data.size)),
                    node="UnsafeViewBackward0", function=False, method=False,
                    derivs={"self": _back_to_input})


# reshape of a non-contiguous tensor whose strides still allow a view: PyTorch's _reshape_alias.
RESHAPE_ALIAS = defop("_reshape_alias", "_reshape_alias(Tensor input, int[] size)", _view_forward,
                      node="ReshapeAliasBackward0", view=True, function=False, method=False,
                      derivs={"self": _back_to_input})


def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view of a contiguous tensor (ViewBackward0), an alias when the strides still allow a
    view (ReshapeAliasBackward0), else a copy (UnsafeViewBackward0 over CloneBackward0)."""
    _, bound = _RESHAPE.parse((self,) + shape, {})
    size = infer_shape(bound["shape"], self._data.size)
    if self._data.flags.c_contiguous:
        return run(VIEW, {"self": self, "size": size})
    if _view_array(self._data, size) is not None:
        return run(RESHAPE_ALIAS, {"self": self, "size": size})
    return run(UNSAFE_VIEW, {"self": self.clone(), "size": size})


def _reshape_function(input: Any, shape: Any) -> Tensor:  # noqa: A002 - PyTorch's name
    _, bound = _RESHAPE_FN.parse((input, shape), {})
    return reshape(bound["input"], bound["shape"])


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    return run(VIEW, {"self": self, "size": tuple(other.shape)})


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, tuple(other.shape))


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = self.ndim
    if nd == 0:
        return reshape(self, (1,))
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise TorchRuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self.shape
    return reshape(self, tuple(shape[:s]) + (numel(shape[s:e + 1]),) + tuple(shape[e + 1:]))


def _unflatten(self: Tensor, dim: int, sizes: Any) -> Tensor:
    nd = self.ndim
    dim = wrap_dim(dim, nd)
    shape = self.shape
    sizes = infer_shape(tuple(sizes), shape[dim])
    return run(VIEW, {"self": self, "size": tuple(shape[:dim]) + sizes + tuple(shape[dim + 1:])})


# -- squeeze / unsqueeze -----------------------------------------------------------------------

def _squeeze_forward(b: dict) -> Any:
    a = b["self"]._data
    dim = b.get("dim")
    if dim is None:
        return a.reshape(tuple(s for s in a.shape if s != 1))
    dims = (dim,) if isinstance(dim, int) else dim
    dims = wrap_dims(dims, a.ndim) if a.ndim else tuple(wrap_dim(x, 0) for x in dims)
    return a.reshape(tuple(s for i, s in enumerate(a.shape) if not (i in dims and s == 1)))


def _squeeze_node(b: dict) -> str:
    # squeeze_ has nodes of its own: SqueezeBackward3/4/5 for the same three overloads
    number = 0 if "dim" not in b else (1 if isinstance(b["dim"], int) else 2)
    return f"SqueezeBackward{number + 3 if b.get('_inplace') else number}"


defop("squeeze", ["squeeze(Tensor input)", "squeeze(Tensor input, int dim)",
                  "squeeze(Tensor input, int[] dim)"], _squeeze_forward, node=_squeeze_node, view=True,
      inplace=True, exposes=("dim", "self_sym_sizes"), derivs={"self": _back_to_input})


def _unsqueeze_forward(b: dict) -> Any:
    a = b["self"]._data
    return _unsqueeze_array(a, wrap_dim(b["dim"], a.ndim + 1))


def _unsqueeze_array(a: np.ndarray, dim: int) -> np.ndarray:
    """A view with a new size-1 dim at ``dim``, strided as PyTorch strides it: the next dim's
    extent, or one element at the end (NumPy's expand_dims differs there, and .stride() shows it)."""
    strides = list(a.strides)
    strides.insert(dim, a.shape[dim] * a.strides[dim] if dim < a.ndim else a.itemsize)
    shape = a.shape[:dim] + (1,) + a.shape[dim:]
    return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)


defop("unsqueeze", "unsqueeze(Tensor input, int dim)", _unsqueeze_forward,
      node=lambda b: "UnsqueezeBackward1" if b.get("_inplace") else "UnsqueezeBackward0", view=True,
      inplace=True, exposes=("dim",), derivs={"self": d()(lambda g, s: g.squeeze(s.dim))})


# -- permute / transpose -----------------------------------------------------------------------

def _permute_forward(b: dict) -> Any:
    a = b["self"]._data
    dims = b["dims"]
    if len(dims) != a.ndim:
        raise TorchRuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {a.ndim} is not equal to len(dims) = "
            f"{len(dims)}")
    wrapped = [wrap_dim(x, a.ndim) for x in dims]
    if len(set(wrapped)) != len(wrapped):
        raise TorchRuntimeError("permute(): duplicate dims are not allowed.")
    return a.transpose(wrapped)


def _inverse_permutation(dims: tuple[int, ...], nd: int) -> tuple[int, ...]:
    wrapped = [wrap_dim(x, nd) for x in dims]
    inv = [0] * nd
    for i, p in enumerate(wrapped):
        inv[p] = i
    return tuple(inv)


PERMUTE = defop("permute", "permute(Tensor input, int[] dims)", _permute_forward, node="PermuteBackward0",
                view=True, exposes=("dims",),
                derivs={"self": d()(lambda g, s: g.permute(_inverse_permutation(s.dims, len(s.dims))))})


def _transpose_forward(b: dict) -> Any:
    a = b["self"]._data
    nd = a.ndim
    d0, d1 = wrap_dim(b["dim0"], nd), wrap_dim(b["dim1"], nd)
    if nd == 0:
        return a.view()
    return np.swapaxes(a, d0, d1)


TRANSPOSE = defop("transpose", "transpose(Tensor input, int dim0, int dim1)", _transpose_forward,
                  node=lambda b: "TransposeBackward1" if b.get("_inplace") else "TransposeBackward0",
                  view=True, inplace=True, exposes=("dim0", "dim1"),
                  derivs={"self": d()(lambda g, s: g.transpose(s.dim0, s.dim1))})
defop("swapaxes", "swapaxes(Tensor input, int axis0, int axis1)",
      lambda b: _transpose_forward({"self": b["self"], "dim0": b["axis0"], "dim1": b["axis1"]}),
      node="TransposeBackward0", view=True,
      derivs={"self": d()(lambda g, s: g.transpose(s.axis0, s.axis1))})


def _t_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.ndim > 2:
        name = "t_" if b.get("_inplace") else "t"
        raise TorchRuntimeError(f"{name}() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return a.T


defop("t", "t(Tensor input)", _t_forward, node=lambda b: "TBackward1" if b.get("_inplace") else "TBackward0",
      view=True, inplace=True,
      derivs={"self": d()(lambda g, s: g.t())})


def _T(self: Tensor) -> Tensor:
    from ..warnings import warn_once  # both warnings are TORCH_WARN_ONCE
    if self.ndim == 0:
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
                  "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)")
    elif self.ndim != 2:
        warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
             "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
             "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
             "tensor. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")
    return run(PERMUTE, {"self": self, "dims": tuple(range(self.ndim - 1, -1, -1))})


def _mT(self: Tensor) -> Tensor:
    if self.ndim == 0:
        from ..warnings import warn_once
        warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases. "
                  "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4373.)")
        return self
    if self.ndim < 2:
        raise TorchRuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return run(TRANSPOSE, {"self": self, "dim0": -2, "dim1": -1})


def _movedim(self: Tensor, source: Any, destination: Any) -> Tensor:
    nd = self.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [wrap_dim(x, nd) for x in src]
    dst = [wrap_dim(x, nd) for x in dst]
    order = [i for i in range(nd) if i not in src]
    for position, dim in sorted(zip(dst, src)):
        order.insert(position, dim)
    return run(PERMUTE, {"self": self, "dims": tuple(order)})


# -- expand / repeat ---------------------------------------------------------------------------

def _expand_forward(b: dict) -> Any:
    t = b["self"]
    a = t._data
    sizes = b["size"]
    if len(sizes) < a.ndim:
        raise TorchRuntimeError(
            f"expand({type_string(t._dtype)}{{{list_str(a.shape)}}}, size={list_str(sizes)}): the "
            f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({a.ndim})")
    lead = len(sizes) - a.ndim
    target: list[int] = []
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as PyTorch's infer_size
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise TorchRuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}")
            target.insert(0, s)
            continue
        cur = a.shape[i - lead]
        if s == -1:
            target.insert(0, cur)
        elif cur == s or cur == 1:
            target.insert(0, s)
        else:
            raise TorchRuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {list_str(sizes)}.  Tensor sizes: {list_str(a.shape)}")
    # PyTorch's strides: 0 for new and stretched dims, the input's own where the size stays (NumPy's
    # broadcast_to makes those 0 too when they are 1, which decides matmul folding and overlap checks)
    strides: list[int] = []
    for i in range(len(target) - 1, -1, -1):
        if i >= lead:
            st = a.strides[i - lead] if a.shape[i - lead] == target[i] else 0
        else:  # a new dim: as if contiguous over the ones after it, 0 when it is stretched
            st = target[i + 1] * strides[0] if i + 1 < len(target) and target[i] == 1 else 0
        strides.insert(0, st)
    strides = tuple(strides)
    repeats = any(st == 0 and n > 1 for st, n in zip(strides, target))
    return np.lib.stride_tricks.as_strided(a, tuple(target), strides, writeable=a.flags.writeable and not repeats)


EXPAND = defop("expand", "expand(Tensor input, int[] size, *, bool implicit=False)", _expand_forward,
               node="ExpandBackward0", view=True, function=False, exposes=("self_sym_sizes",),
               derivs={"self": d()(lambda g, s: g.sum_to_size(s.self_sym_sizes))})


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return run(EXPAND, {"self": self, "size": tuple(other.shape), "implicit": False})


def _repeat_forward(b: dict) -> Any:
    a = b["self"]._data
    reps = b["repeats"]
    if len(reps) < a.ndim:
        raise TorchRuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    return np.tile(a.reshape((1,) * (len(reps) - a.ndim) + a.shape), reps)


def _repeat_backward(g: Tensor, s: Any) -> Tensor:
    reps = s.repeats
    in_shape = tuple(s.self_sym_sizes)
    padded = (1,) * (len(reps) - len(in_shape)) + in_shape
    # Split every dim into (copies, size) and sum the copies away.
    split = []
    for r, n in zip(reps, padded):
        split += [r, n]
    summed = g.reshape(tuple(split)).sum(tuple(range(0, 2 * len(reps), 2)))
    return summed.reshape(in_shape)


defop("repeat", "repeat(Tensor input, int[] repeats)", _repeat_forward, node="RepeatBackward0",
      function=False, exposes=("repeats", "self_sym_sizes"), derivs={"self": d()(_repeat_backward)})


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
        from ..dispatch.promotion import promote
        return np.zeros(0, dtype=promote(*tensors).np)  # all skipped: no dim to check
    ref = ref if ref is not None else tensors[0]
    nd = ref.ndim
    if nd == 0:
        raise TorchRuntimeError(
            "zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = wrap_dim(b["dim"], nd)
    from ..dispatch.promotion import promote
    rt = promote(*tensors)
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


defop("cat", "cat(Tensor[] tensors, int dim=0, *, Tensor? out=None)", _cat_forward, node="CatBackward0",
      inputs=("tensors",), method=False, exposes=("dim",), derivs={"tensors": d()(_cat_backward)})
FUNCTIONS["concat"] = FUNCTIONS["concatenate"] = FUNCTIONS["cat"]


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
    return Tensor._make(_unsqueeze_array(t._data, dim), t._dtype)


defop("stack", "stack(Tensor[] tensors, int dim=0, *, Tensor? out=None)", _stack_forward,
      node="StackBackward0", inputs=("tensors",), method=False, exposes=("dim",),
      derivs={"tensors": d()(lambda g, s: list(g.unbind(s.dim)))})


def _hstack(tensors: Any) -> Tensor:
    ts = list(tensors)
    return FUNCTIONS["cat"](ts, 0 if ts and ts[0].ndim == 1 else 1)


def _vstack(tensors: Any) -> Tensor:
    return FUNCTIONS["cat"]([t.reshape(1, -1) if t.ndim <= 1 else t for t in tensors], 0)


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
    dim = wrap_dim(b["dim"], a.ndim)
    size = b["split_size"]
    if isinstance(size, tuple):
        if sum(size) != a.shape[dim]:
            raise TorchRuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {a.shape[dim]} (input tensor's size "
                f"at dimension {b['dim']}), but got split_sizes={list_str(size)}")
        return _pieces(a, dim, list(size))
    return _pieces(a, dim, _split_sizes(a.shape[dim], size))


def _cat_grads(grads: list, s: Any) -> Tensor:
    return FUNCTIONS["cat"](grads, s.dim)


defop("split", ["split(Tensor input, int split_size, int dim=0)",
                "split(Tensor input, int[] split_size, int dim=0)"], _split_forward,
      node=lambda b: "SplitWithSizesBackward0" if isinstance(b["split_size"], tuple) else "SplitBackward0",
      view=True, exposes={"SplitBackward0": ("dim", "self_sym_sizes", "split_size")},
      derivs={"self": d()(_cat_grads)})


def _chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple:
    if chunks <= 0:
        raise TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self.shape[wrap_dim(dim, self.ndim)]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        return self.split([0] * chunks, dim)  # PyTorch's split_with_sizes of zeros
    return self.split(split_size, dim)


def _unbind_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.ndim == 0:
        raise TorchIndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(b["dim"], a.ndim)
    return tuple(a[(slice(None),) * dim + (i, Ellipsis)] for i in range(a.shape[dim]))


defop("unbind", "unbind(Tensor input, int dim=0)", _unbind_forward, node="UnbindBackward0", view=True,
      exposes=("dim",),
      derivs={"self": d()(lambda g, s: FUNCTIONS["stack"](g, s.dim))})


# -- narrow / select / slice / diagonal ----------------------------------------------------------

def _slice_forward(b: dict) -> Any:
    a = b["self"]._data
    dim = wrap_dim(b["dim"], a.ndim)
    start, end, step = b["start"], b["end"], b["step"]
    if step <= 0:
        raise TorchValueError("step must be greater than zero")
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, end, step)
    return a[tuple(index)]


def _slice_backward(g: Tensor, s: Any) -> Tensor:
    return _embed(s.self_sym_sizes, g, lambda t: t.slice(s.dim, s.start, s.end, s.step),
                  "SliceBackwardBackward0")


SLICE = defop("slice", "slice(Tensor input, int dim=0, int? start=None, int? end=None, int step=1)",
              _slice_forward, node="SliceBackward0", view=True, function=False, method=False,
              exposes=("dim", "start", "end", "step", "self_sym_sizes"),
              derivs={"self": d()(_slice_backward)})
Tensor.slice = lambda self, dim=0, start=None, end=None, step=1: run(
    SLICE, {"self": self, "dim": dim, "start": start, "end": end, "step": step})


def _embed_forward(b: dict) -> Any:
    g = b["self"]
    out = np.zeros(b["shape"], dtype=g._dtype.np)
    from ..autograd.views import region_of
    region_of(b["region"], out)[...] = g._data
    return out


# The gradient of a view op: zeros of the input's shape with the gradient in the view's
# region.  Its own gradient is the view op again (PyTorch's <View>BackwardBackward0).
EMBED = defop("_embed", "_embed(Tensor input, any shape, any region, str node)", _embed_forward,
              node=lambda b: b["node"], function=False, method=False,
              derivs={"self": d()(lambda g, s: s.region(g))})


def _embed(shape: Any, g: Tensor, region: Any, node: str) -> Tensor:
    return run(EMBED, {"self": g, "shape": tuple(shape), "region": region, "node": node})


def _narrow(self: Tensor, dim: int, start: Any, length: int) -> Tensor:
    nd = self.ndim
    if nd == 0:
        raise TorchRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
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
    return run(SLICE, {"self": self, "dim": dim, "start": start, "end": start + length, "step": 1})


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
               node="SelectBackward0", view=True, exposes=("dim", "index", "self_sym_sizes"), derivs={"self": d()(_select_backward)})

ALIAS = defop("alias", "alias(Tensor input)", lambda b: b["self"]._data.view(), node="AliasBackward0",
              view=True, method=False, derivs={"self": d()(lambda g, s: g)})


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


defop("diagonal", "diagonal(Tensor input, int offset=0, int dim1=0, int dim2=1)", _diagonal_forward,
      node="DiagonalBackward0", view=True, exposes=("dim1", "dim2", "offset", "self_sym_sizes"), derivs={"self": d()(_diagonal_backward)})


# -- flip / tril / triu / diag -----------------------------------------------------------------

def _flip_forward(b: dict) -> Any:
    a = b["self"]._data
    dims = wrap_dims(b["dims"], a.ndim)
    return np.flip(a, dims).copy() if dims and a.ndim else a.copy()


defop("flip", "flip(Tensor input, int[] dims)", _flip_forward, node="FlipBackward0", exposes=("dims",),
      derivs={"self": d()(lambda g, s: g.flip(s.dims))})


def _tri(fn: Any, name: str) -> Any:
    def forward(b: dict) -> Any:
        a = b["self"]._data
        if a.ndim < 2:
            raise TorchRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return fn(a, b["diagonal"])
    return forward


defop("tril", "tril(Tensor input, int diagonal=0, *, Tensor? out=None)", _tri(np.tril, "tril"),
      node="TrilBackward0", inplace=True, exposes=("diagonal",), derivs={"self": d()(lambda g, s: g.tril(s.diagonal))})
defop("triu", "triu(Tensor input, int diagonal=0, *, Tensor? out=None)", _tri(np.triu, "triu"),
      node="TriuBackward0", inplace=True, exposes=("diagonal",), derivs={"self": d()(lambda g, s: g.triu(s.diagonal))})


def _diag_embed_forward(b: dict) -> Any:
    a = b["self"]._data
    k = b["offset"]
    n = a.shape[-1] + abs(k)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    rows = np.arange(a.shape[-1]) + max(-k, 0)
    cols = np.arange(a.shape[-1]) + max(k, 0)
    out[..., rows, cols] = a
    return out


DIAG_EMBED = defop("diag_embed", "diag_embed(Tensor input, int offset=0, int dim1=-2, int dim2=-1)",
                   _diag_embed_forward, node="DiagEmbedBackward0",
                   derivs={"self": d()(lambda g, s: g.diagonal(s.offset, -2, -1))})
DIAG_COPY = defop("_diagonal_copy", "_diagonal_copy(Tensor input, int offset=0)",
                  lambda b: diagonal_view(b["self"]._data, b["offset"], 0, 1).copy(),
                  node="DiagonalBackward0_copy", function=False, method=False,
                  derivs={"self": d()(lambda g, s: _embed(s.self_sym_sizes, g, lambda t: t.diagonal(s.offset),
                                                          "DiagonalBackwardBackward0"))})


def _diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    if input.ndim == 1:
        return run(DIAG_EMBED, {"self": input, "offset": diagonal, "dim1": -2, "dim2": -1})
    if input.ndim == 2:
        return run(DIAG_COPY, {"self": input, "offset": diagonal})
    raise TorchRuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")


def _install() -> None:
    from .registry import METHOD_NAMES
    from ..dispatch.signature import ArgParser
    global _RESHAPE, _RESHAPE_FN
    _RESHAPE = ArgParser(["reshape(Tensor input, int[] shape)"], method=True)
    _RESHAPE_FN = ArgParser(["reshape(Tensor input, int[] shape)"])
    methods = {
        "reshape": reshape, "view_as": _view_as, "reshape_as": _reshape_as, "flatten": flatten,
        "unflatten": _unflatten, "movedim": _movedim, "moveaxis": _movedim, "expand_as": _expand_as,
        "chunk": _chunk, "narrow": _narrow, "diag": _diag,
    }
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(_T)
    Tensor.mT = property(_mT)
    METHOD_NAMES.update(methods)
    Tensor.__script_attrs__ = Tensor.__script_attrs__ | set(methods)
    FUNCTIONS.update({
        "reshape": _reshape_function, "flatten": flatten, "unflatten": _unflatten, "movedim": _movedim,
        "moveaxis": _movedim, "chunk": _chunk, "narrow": _narrow, "diag": _diag, "hstack": _hstack,
        "vstack": _vstack,
    })


_RESHAPE: Any = None
_RESHAPE_FN: Any = None
_install()
__all__ = ["OPS", "zeros_like"]
