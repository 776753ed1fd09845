"""Shape ops: views that move or reinterpret dims (view, reshape, squeeze, permute, transpose,
``t``, expand) and ``repeat``.

View ops return NumPy views, so writes through them reach the base tensor;
their gradients put the gradient back into the input's shape (the inverse
movement, as tinygrad's movement ops do).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.limits import check_count
from ..dispatch.op import LINEAR
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..layout import byte_strides
from ..shape_rules import check_ndim, list_str, numel, type_string, wrap_dim, wrap_dims
from ..batching.batched_tensor import BatchedTensor, at_front
from ..tensor import Tensor
from ..warnings import warn_once

CATALOG = Catalog(jvp=LINEAR, vmap="dims")
defop = CATALOG.defop

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


_back_to_input = d(rule="grad reshaped back to self's shape")(lambda g, s: g.reshape(s.self_sym_sizes))

def _view_jvp(bound: dict, tangents: dict, outputs: list) -> Any:
    # (the tangent viewed as self is; where its own layout allows no view -- a batch of
    # tangents inside vmap, jacfwd's -- its values reshaped, as PyTorch's batch rule gives)
    return tangents["self"].reshape(list(outputs[0].shape))


VIEW = defop("view", "view(Tensor input, int[] size)", _view_forward, node="ViewBackward0", jvp=_view_jvp,
             view=True, function=False, exposes=("self_sym_sizes",), derivs={"self": _back_to_input})
UNSAFE_VIEW = defop("_unsafe_view", "_unsafe_view(Tensor input, int[] size)",
                    lambda b: b["self"]._data.reshape(infer_shape(b["size"], b["self"]._data.size)),
                    node="UnsafeViewBackward0", function=False, method=False, exposes=("self_sym_sizes",),
                    derivs={"self": _back_to_input})


# reshape of a non-contiguous tensor whose strides still allow a view: PyTorch's _reshape_alias.
RESHAPE_ALIAS = defop("_reshape_alias", "_reshape_alias(Tensor input, int[] size)", _view_forward,
                      node="ReshapeAliasBackward0", view=True, function=False, method=False, jvp=_view_jvp,
                      exposes=("self_sym_sizes",),
                      derivs={"self": _back_to_input})


_RESHAPE = LazyParser("reshape(Tensor input, int[] shape)", method=True)
_RESHAPE_FN = LazyParser("reshape(Tensor input, int[] shape)")


@signed(_RESHAPE, method=True)
def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view of a contiguous tensor (ViewBackward0), an alias when the strides still allow a
    view (ReshapeAliasBackward0), else a copy (UnsafeViewBackward0 over CloneBackward0)."""
    _, bound = _RESHAPE.parse((self,) + shape, {})
    if isinstance(self, BatchedTensor):   # (inside vmap: the physical value decides view or copy,
        return reshape_batched(self, tuple(bound["shape"]))   # and a wrong shape is named as PyTorch does)
    size = infer_shape(bound["shape"], self._data.size)
    if self._data.flags.c_contiguous:
        return run(VIEW, {"self": self, "size": size})
    if _view_array(self._data, size) is not None:
        return run(RESHAPE_ALIAS, {"self": self, "size": size})
    return run(UNSAFE_VIEW, {"self": self.clone(), "size": size})


def reshape_batched(self: BatchedTensor, size: tuple) -> Tensor:
    physical, _ = at_front(self, self._level)
    return BatchedTensor.wrap(reshape(physical, (physical.shape[0],) + tuple(size)), 0, self._level)


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


SQUEEZE = defop("squeeze", ["squeeze(Tensor input)", "squeeze(Tensor input, int dim)",
                  "squeeze(Tensor input, int[] dim)"], _squeeze_forward, node=_squeeze_node, view=True,
      inplace=True, exposes=("dim", "self_sym_sizes"), derivs={"self": _back_to_input})


def _unsqueeze_forward(b: dict) -> Any:
    a = b["self"]._data
    return unsqueeze_array(a, wrap_dim(b["dim"], a.ndim + 1))


def unsqueeze_array(a: np.ndarray, dim: int) -> np.ndarray:
    """A view with a new size-1 dim at ``dim``, strided as PyTorch strides it: the next dim's
    extent, or one element at the end (NumPy's expand_dims differs there, and .stride() shows it)."""
    check_ndim(a.ndim + 1)
    strides = list(byte_strides(a))
    strides.insert(dim, a.shape[dim] * strides[dim] if dim < a.ndim else a.itemsize)
    shape = a.shape[:dim] + (1,) + a.shape[dim:]
    return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)


UNSQUEEZE = defop("unsqueeze", "unsqueeze(Tensor input, int dim)", _unsqueeze_forward,
      node=lambda b: "UnsqueezeBackward1" if b.get("_inplace") else "UnsqueezeBackward0", view=True,
      inplace=True, exposes=("dim",),
      derivs={"self": d(rule="grad squeezed at dim, back to self's shape")(lambda g, s: g.squeeze(s.dim))})


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
                derivs={"self": d(rule="grad permuted back (by the inverse of dims)")(
                    lambda g, s: g.permute(_inverse_permutation(s.dims, len(s.dims))))})


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
                  derivs={"self": d(rule="grad with dim0 and dim1 swapped back")(
                      lambda g, s: g.transpose(s.dim0, s.dim1))})
defop("swapaxes", "swapaxes(Tensor input, int axis0, int axis1)",
      lambda b: _transpose_forward({"self": b["self"], "dim0": b["axis0"], "dim1": b["axis1"]}),
      node="TransposeBackward0", view=True,
      derivs={"self": d(rule="grad with axis0 and axis1 swapped back")(lambda g, s: g.transpose(s.axis0, s.axis1))})


def _t_forward(b: dict) -> Any:
    a = b["self"]._data
    if a.ndim > 2:
        name = "t_" if b.get("_inplace") else "t"
        raise TorchRuntimeError(f"{name}() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return a.T


T = defop("t", "t(Tensor input)", _t_forward, node=lambda b: "TBackward1" if b.get("_inplace") else "TBackward0",
      view=True, inplace=True,
      derivs={"self": d(rule="grad^T")(lambda g, s: g.t())})


def _T(self: Tensor) -> Tensor:
    # both warnings are TORCH_WARN_ONCE
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

_INT64_MAX = 2**63 - 1


def _checked_numel(shape: list[int]) -> int:
    """The element count as c10's safe_multiplies_u64 finds it: each size as an unsigned 64-bit
    int (a negative one is huge), overflow at any step, or a count past int64, refused."""
    count, overflow = 1, False
    for n in shape:
        count *= n % 2**64
        overflow |= count >= 2**64
        count %= 2**64
    if overflow or count > _INT64_MAX:
        raise TorchRuntimeError("numel: integer multiplication overflow")
    return count


def expand_forward(b: dict) -> Any:
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
    count = _checked_numel(target)
    if any(n < 0 for n in target):   # (PyTorch makes torch.Size([0, -3]); NumPy has no such array)
        raise TorchNotImplementedError(f"gradcli does not support tensors with a negative size "
                                       f"(expand to torch.Size({list_str(target)}))")
    if count * a.itemsize > _INT64_MAX:   # (NumPy cannot describe even a view that large)
        raise TorchNotImplementedError(f"gradcli does not support tensors of more than {_INT64_MAX} bytes, "
                                       f"views included (this one would have {count} elements)")
    repeats = any(st == 0 and n > 1 for st, n in zip(strides, target))
    return np.lib.stride_tricks.as_strided(a, tuple(target), strides, writeable=a.flags.writeable and not repeats)


EXPAND = defop("expand", "expand(Tensor input, int[] size, *, bool implicit=False)", expand_forward,
               node="ExpandBackward0", view=True, function=False, exposes=("self_sym_sizes",),
               derivs={"self": d(rule="grad summed over the expanded dims, back to self's shape")(
                   lambda g, s: g.sum_to_size(s.self_sym_sizes))})


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return run(EXPAND, {"self": self, "size": tuple(other.shape), "implicit": False})


def _repeat_forward(b: dict) -> Any:
    a = b["self"]._data
    reps = b["repeats"]
    if len(reps) < a.ndim:
        raise TorchRuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(reps) - a.ndim) + a.shape
    target = tuple(n * r for n, r in zip(padded, reps))
    if any(n < 0 for n in target):
        raise TorchRuntimeError(f"Trying to create tensor with negative dimension {next(n for n in target if n < 0)}: "
                                f"{list_str(target)}")
    check_count(numel(target), 2 * a.itemsize)  # (np.tile's last step copies its previous one)
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


REPEAT = defop("repeat", "repeat(Tensor input, int[] repeats)", _repeat_forward, node="RepeatBackward0",
      function=False, exposes=("repeats", "self_sym_sizes"),
      derivs={"self": d(rule="grad's repeated copies summed, back to self's shape")(_repeat_backward)})



ALIAS = defop("alias", "alias(Tensor input)", lambda b: b["self"]._data.view(), node="AliasBackward0",
              view=True, vmap="unary", method=False, derivs={"self": d(rule="grad")(lambda g, s: g)})

CATALOG.register(reshape, "reshape", method=True)
CATALOG.register(_reshape_function, "reshape", torch=True)
CATALOG.register(_view_as, "view_as", method=True, sigs="view_as(Tensor input, Tensor other)")
CATALOG.register(_reshape_as, "reshape_as", method=True, sigs="reshape_as(Tensor input, Tensor other)")
CATALOG.register(flatten, "flatten", torch=True, method=True,
                 sigs="flatten(Tensor input, int start_dim=0, int end_dim=-1)")
CATALOG.register(_unflatten, "unflatten", torch=True, method=True, sigs="unflatten(Tensor input, int dim, int[] sizes)")
for _name in ("movedim", "moveaxis"):
    CATALOG.register(_movedim, _name, torch=True, method=True,
                     sigs=[f"{_name}(Tensor input, int source, int destination)",
                           f"{_name}(Tensor input, int[] source, int[] destination)"])
CATALOG.register(_expand_as, "expand_as", method=True, sigs="expand_as(Tensor input, Tensor other)")
CATALOG.register(property(_T), "T", method=True)
CATALOG.register(property(_mT), "mT", method=True)
