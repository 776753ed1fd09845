"""Batch rules: each op's call on batched tensors rewritten as calls on their physical values.

An op record names its rule in ``Op.vmap`` (a family's catalog gives the default); the kinds:

* ``POINTWISE``: every tensor argument broadcasts with the others.  A batched argument of
  lower logical rank is viewed with size-1 dims after its batch, so that logical broadcasting
  from the right still holds; for a binary op, a logically 0-dim batched argument, which
  physically has a dim, is cast where that would change the result's dtype (functorch's
  ``handleScalarTypePromotion``).
* ``REDUCTION``: ``dim`` shifted past the batch; a reduction over everything becomes one over
  every logical dim (``int[]`` dims) or over the flattened sample (an ``int`` dim: max, argmax).
* ``DIMS``: ops whose dim arguments are shifted (``DIM_ARGUMENTS``), or rewritten by a function
  of their own (``SHAPE_RULES``: view, expand, permute, cat, index, ...).
* a function ``rule(op, bound, level, inner)``: the op's own (matmul's family, losses).

Rules follow the decompositions of PyTorch's functorch (BatchRules*.cpp), so that the physical
calls, and with them the values and the node names of the graph, are the ones PyTorch makes.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable

from .. import dtypes
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor
from . import state
from .batched_tensor import BatchedTensor, _wrapped_dim, at_front, batch_size
from .dispatch import Placed

if TYPE_CHECKING:
    from ..dispatch.op import Op

POINTWISE = "pointwise"
REDUCTION = "reduction"
DIMS = "dims"
UNARY = "unary"   # one tensor, per sample, whatever its dims (clone, tril, det): nothing to rewrite

Rule = Callable[["Op", dict, int, Callable], Any]


def rule_for(op: "Op") -> Rule | None:
    """The op's batch rule: its kind's, or (another name) the function of that name in op_rules."""
    kind = op.vmap
    if kind is None:
        return None
    if kind == DIMS:
        return SHAPE_RULES.get(op.name) or (_shifted_dims if op.name in DIM_ARGUMENTS else None)
    found = _KINDS.get(kind)
    if found is not None:
        return found
    from . import op_rules
    return getattr(op_rules, kind)


# -- helpers ------------------------------------------------------------------------------------

def _size(bound: dict, level: int) -> int:
    for value in bound.values():
        n = batch_size(value, level)
        if n is not None:
            return n
        if isinstance(value, (list, tuple)):
            for item in value:
                n = batch_size(item, level)
                if n is not None:
                    return n
    raise AssertionError("no batched argument")


def _padded(physical: Tensor, rank: int, to: int) -> Tensor:
    """A batch-first physical tensor of logical ``rank`` viewed with size-1 dims after the batch
    up to logical rank ``to``."""
    if rank >= to:
        return physical
    shape = tuple(physical.shape)
    return physical.view(shape[:1] + (1,) * (to - rank) + shape[1:])


def _shift(dim: Any, rank: int) -> Any:
    """A logical dim (or list of dims) as the physical one of a batch-first tensor."""
    if isinstance(dim, (list, tuple)):
        return [_wrapped_dim(d, rank) + 1 for d in dim]
    return _wrapped_dim(dim, rank) + 1


def _expanded(value: Tensor, level: int, size: int) -> Tensor:
    """``value`` batch first: its physical tensor, or itself expanded over a new batch."""
    physical, batched = at_front(value, level)
    if batched:
        return physical
    return physical.expand((size,) + tuple(physical.shape))


# -- the kinds ----------------------------------------------------------------------------------

def unary(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """An op of one batched input (its first input); other tensors (a layer norm's weight) must
    not be batched."""
    main = op.inputs[0]
    new = dict(bound)
    for key, value in bound.items():
        if isinstance(value, Tensor):
            new[key], batched = at_front(value, level)
            if batched != (key == main):
                raise TorchNotImplementedError(f"gradcli does not support vmap over {op.name} with a batched "
                                               f"{key} yet" if batched else
                                               f"gradcli does not support vmap over {op.name} with an unbatched "
                                               f"{key} yet")
    return inner(op, new)


_NOT_PROMOTED = ("condition", "mask")
# functorch corrects the promotion of a logically 0-dim batched operand for its binary pointwise
# ops (add, mul, pow, maximum, eq, ...) only; where, clamp, addcmul, masked_fill promote as the
# physical tensors do.
_BINARY_OPERANDS = ({"self", "other"}, {"self", "exponent"})


def pointwise(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    tensors = [(k, v) for k, v in bound.items() if isinstance(v, Tensor)]
    top = max(v.dim() for _, v in tensors)
    new = dict(bound)
    scalars = []
    for key, value in tensors:
        physical, batched = at_front(value, level)
        if batched:
            rank = value.dim()
            physical = _padded(physical, rank, top)
            if rank == 0 and key not in _NOT_PROMOTED:
                scalars.append(key)
        new[key] = physical
    if scalars and {k for k, _ in tensors} in _BINARY_OPERANDS:
        _keep_scalar_promotion(bound, new, scalars)
    return inner(op, new)


def _keep_scalar_promotion(bound: dict, new: dict, scalars: list) -> None:
    """Cast the logically 0-dim batched arguments to the dtype they would give as 0-dim tensors,
    when having dims physically would change the result's dtype."""
    logical, physical = [], []
    for key, value in bound.items():
        if not isinstance(value, Tensor) or key in _NOT_PROMOTED:
            continue
        priority = 2 if value._wrapped else (1 if value.dim() == 0 else 0)
        logical.append((value._dtype, priority))
        physical.append((value._dtype, 0 if key in scalars else priority))
    want = dtypes._promoted(tuple(logical))
    if dtypes._promoted(tuple(physical)) is not want:
        for key in scalars:
            new[key] = new[key].to(want)


@functools.lru_cache(maxsize=None)
def _dim_is_list(op: "Op") -> bool:
    return any("] dim" in sig or "]? dim" in sig for sig in op.sigs)


@functools.lru_cache(maxsize=None)
def _has_keepdim(op: "Op") -> bool:
    return any("keepdim" in sig for sig in op.sigs)


def reduction(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    if isinstance(bound.get("other"), Tensor):   # max(x, y), min(x, y): pointwise
        return pointwise(op, bound, level, inner)
    x = bound["self"]
    physical, batched = at_front(x, level)
    if not batched:
        return unary(op, bound, level, inner)
    rank = x.dim()
    new = dict(bound, self=physical)
    dim = bound.get("dim")
    if dim is not None and not (isinstance(dim, (list, tuple)) and len(dim) == 0):
        new["dim"] = _shift(dim, rank)
        if rank == 0:   # (a 0-dim sample takes dim 0 or -1: reduced as a sample of one element)
            new["self"], new["keepdim"] = physical.unsqueeze(1), False
        return inner(op, new)
    if _has_keepdim(op):
        new["keepdim"] = False
    if _dim_is_list(op):
        if rank == 0:
            new["self"] = physical.unsqueeze(1)
        new["dim"] = list(range(1, max(rank, 1) + 1))
        return inner(op, new)
    if op.name in ("max", "min") and state.tracks_inside(level):
        # a gradient transform inside this vmap differentiates max() itself, whose gradient is
        # shared evenly among ties: amax/amin over the sample's dims has that gradient
        from ..dispatch.publish import OPS
        return inner(OPS["amax" if op.name == "max" else "amin"],
                     {"self": physical, "dim": list(range(1, max(rank, 1) + 1)), "keepdim": False}
                     if rank else {"self": physical.unsqueeze(1), "dim": [1], "keepdim": False})
    new["self"] = physical.reshape(physical.shape[0], -1)
    new["dim"] = 1
    result = inner(op, new)
    return result[0] if isinstance(result, tuple) else result   # (max(): the values of max(dim))


# -- ops with dim arguments -----------------------------------------------------------------------

# The dim arguments of each op, and by how much the rank they are wrapped against exceeds the
# input's logical rank (unsqueeze and diag_embed name dims of their result).
DIM_ARGUMENTS: dict[str, tuple[tuple[str, ...], int]] = {
    "unsqueeze": (("dim",), 1), "transpose": (("dim0", "dim1"), 0), "swapaxes": (("axis0", "axis1"), 0),
    "slice": (("dim",), 0), "select": (("dim",), 0), "diagonal": (("dim1", "dim2"), 0),
    "flip": (("dims",), 0), "diag_embed": (("dim1", "dim2"), 1), "split": (("dim",), 0),
    "unbind": (("dim",), 0), "softmax": (("dim",), 0), "log_softmax": (("dim",), 0),
    "logsumexp": (("dim",), 0), "cumsum": (("dim",), 0), "cumprod": (("dim",), 0),
    "index_select": (("dim",), 0), "_squeeze_dim": (("dim",), 0),
    "_softmax_backward_data": (("dim",), 0), "_log_softmax_backward_data": (("dim",), 0),
}
# Of those, the ops functorch takes dim 0 of a 0-dim sample for (the others refuse it, naming the
# physical dim, as PyTorch's rules do).
_ZERO_DIM_OK = frozenset({"softmax", "log_softmax", "logsumexp", "cumsum", "cumprod"})
# Of those, the ops whose tensor arguments are all per-element operands of the same shape
# (batched or not alike); the others take one batched input.
_ALIGNED = frozenset({"_softmax_backward_data", "_log_softmax_backward_data"})


def _shifted_dims(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    if op.name in _ALIGNED:
        names, extra = DIM_ARGUMENTS[op.name]
        size = _size(bound, level)
        new = {k: (_expanded(v, level, size) if isinstance(v, Tensor) else v) for k, v in bound.items()}
        for name in names:
            new[name] = _shift(bound[name], bound["self"].dim() + extra)
        if bound["self"].dim() == 0:   # (the gradient of softmax over a 0-dim sample: as one of one element)
            new = {k: (v.unsqueeze(1) if isinstance(v, Tensor) else v) for k, v in new.items()}
            return inner(op, new).squeeze(1)
        return inner(op, new)
    x = bound["self"]
    physical, batched = at_front(x, level)
    if not batched or any(isinstance(v, BatchedTensor) and v._level == level for k, v in bound.items()
                          if k != "self"):
        raise TorchNotImplementedError(f"gradcli does not support vmap over {op.name} with a batched "
                                       f"{'index' if batched else 'argument other than the input'} yet")
    names, extra = DIM_ARGUMENTS[op.name]
    new = dict(bound, self=physical)
    for name in names:
        if name in bound:
            new[name] = _shift(bound[name], x.dim() + extra)
    if x.dim() == 0 and op.name in _ZERO_DIM_OK:   # (softmax, cumsum of a 0-dim sample: as one of one element)
        new["self"] = physical.unsqueeze(1)
        if _has_keepdim(op):   # (logsumexp: the dim is reduced away)
            return inner(op, dict(new, keepdim=False))
        result = inner(op, new)
        return [r.squeeze(1) for r in result] if isinstance(result, (list, tuple)) else result.squeeze(1)
    return inner(op, new)


def _self_only(op: "Op", bound: dict, level: int) -> tuple[Tensor, Tensor, dict]:
    x = bound["self"]
    physical, batched = at_front(x, level)
    if not batched:
        raise TorchNotImplementedError(f"gradcli does not support vmap over {op.name} with a batched argument "
                                       "other than the input yet")
    return x, physical, dict(bound, self=physical)


def _view(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    new["size"] = (physical.shape[0],) + tuple(bound["size"])   # (a wrong size: PyTorch's message names both)
    return inner(op, new)


def _squeeze(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    rank = x.dim()
    if "dim" not in bound:
        new["dim"] = [i + 1 for i, n in enumerate(x.shape) if n == 1]
    elif rank == 0:
        # (functorch's rule takes only dim 0 of a 0-dim sample, and names the dims it got)
        dims = list(bound["dim"]) if isinstance(bound["dim"], (list, tuple)) else [bound["dim"]]
        if any(d != 0 for d in dims):
            raise TorchRuntimeError("Dimension is out of range (expected to be in range of [-1, 0], but got "
                                    f"[{', '.join(str(d) for d in dims)}]")
        return inner(op, dict(new, dim=[]))
    else:
        new["dim"] = _shift(bound["dim"], rank)
    return inner(op, new)


def _permute(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    dims = _shift(list(bound["dims"]), x.dim())
    if len(dims) != x.dim():
        raise TorchRuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                                f"the length of the desired ordering of dimensions i.e. input.dim() = {x.dim()} "
                                f"is not equal to len(dims) = {len(dims)}")
    new["dims"] = [0] + dims
    return inner(op, new)


def _t(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    if x.dim() > 2:
        raise TorchRuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.dim()}D")
    return physical.transpose(1, 2) if x.dim() == 2 else physical.view(tuple(physical.shape))


def _expand(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    size = list(bound["size"])
    if len(size) < x.dim():
        raise TorchRuntimeError(f"expand(torch.FloatTensor{{{list(x.shape)}}}, size={size}): the number of sizes "
                                f"provided ({len(size)}) must be greater or equal to the number of dimensions in "
                                f"the tensor ({x.dim()})")
    new["self"] = _padded(physical, x.dim(), len(size))
    new["size"] = [physical.shape[0]] + size
    return inner(op, new)


def _repeat(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    repeats = list(bound["repeats"])
    if len(repeats) < x.dim():
        raise TorchRuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                                "dimensions of tensor")
    new["self"] = _padded(physical, x.dim(), len(repeats))
    new["repeats"] = [1] + repeats
    return inner(op, new)


def _joined(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """cat and stack: every tensor batched (an unbatched one expanded over the batch)."""
    tensors = list(bound["tensors"])
    size = _size(bound, level)
    rank = next((t.dim() for t in tensors if t.dim() > 1 or t.numel() > 0), tensors[0].dim()) if tensors else 0
    extra = 1 if op.name == "stack" else 0
    new = dict(bound, tensors=[_expanded(t, level, size) for t in tensors])
    new["dim"] = _shift(bound.get("dim", 0), rank + extra)
    return inner(op, new)


def _index(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """``x[index]`` with index tensors: their dims shifted past the batch.  NumPy's rule places the
    result of separated index tensors first, so the batch then follows them."""
    pairs = bound["indices"]
    batched_index = [isinstance(t, BatchedTensor) and t._level == level for _, t in pairs]
    if any(batched_index):
        if len(pairs) == 1 and pairs[0][0] == 0 and not (isinstance(bound["self"], BatchedTensor)
                                                         and bound["self"]._level == level):
            # one batched index into a shared tensor (a weight per target): each sample's own rows
            index, _ = at_front(pairs[0][1], level)
            return inner(op, dict(bound, indices=[(0, index)]))
        raise TorchNotImplementedError("gradcli does not support vmap over indexing with a batched index "
                                       "tensor yet")
    x, physical, new = _self_only(op, bound, level)
    new["indices"] = [(dim + 1, t) for dim, t in pairs]
    result = inner(op, new)
    spans = []
    for dim, t in pairs:
        width = max(t.dim(), 1) if t._dtype is dtypes.bool_ else 1
        spans.extend(range(dim, dim + width))
    if sorted(spans) == list(range(min(spans), max(spans) + 1)):
        return result
    index_rank = max((1 if t._dtype is dtypes.bool_ else t.dim()) for _, t in pairs)
    return Placed(result, index_rank)


def _index_put(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    x, physical, new = _self_only(op, bound, level)
    if any(isinstance(t, BatchedTensor) and t._level == level for _, t in bound["indices"]):
        raise TorchNotImplementedError("gradcli does not support vmap over index_put with a batched index "
                                       "tensor yet")
    new["indices"] = [(dim + 1, t) for dim, t in bound["indices"]]
    values = bound["values"]
    # the values batched as the target is (expanded when shared), their dims after the batch
    # aligned with the indexed part's (PyTorch's message then names the batched shapes)
    physical_values = _expanded(values, level, physical.shape[0])
    new["values"] = _padded(physical_values, values.dim(), _indexed_rank(physical, new["indices"]) - 1)
    return inner(op, new)


def _indexed_rank(physical: Tensor, pairs: list) -> int:
    """The rank of ``physical[index]`` for index's (dim, tensor) pairs, without indexing the data."""
    import numpy as np

    from ..ops.indexing import _numpy_index
    try:
        index = _numpy_index(tuple(physical.shape), pairs, bounds=False)
        return np.broadcast_to(np.zeros((), dtype=np.int8), tuple(physical.shape))[index].ndim
    except Exception:  # noqa: BLE001 - (a bad index: the op's own check reports it)
        return physical.dim()


def _gathering(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """gather, scatter, scatter_add, index_add: every tensor batched, dim shifted."""
    size = _size(bound, level)
    rank = bound["self"].dim()
    new = dict(bound)
    for key, value in bound.items():
        if isinstance(value, Tensor):
            if key == "index" and op.name == "index_add":   # (a vector along dim, for every sample)
                if isinstance(value, BatchedTensor) and value._level == level:
                    raise TorchNotImplementedError("gradcli does not support vmap over index_add with a batched "
                                                   "index yet")
                continue
            if value.dim() != rank and op.name != "index_add":
                raise TorchRuntimeError("Index tensor must have the same number of dimensions as input tensor")
            new[key] = _expanded(value, level, size)
    new["dim"] = _shift(bound["dim"], rank)
    return inner(op, new)


SHAPE_RULES: dict[str, Rule] = {
    "view": _view, "_unsafe_view": _view, "_reshape_alias": _view, "squeeze": _squeeze,
    "permute": _permute, "t": _t, "expand": _expand, "repeat": _repeat, "cat": _joined, "stack": _joined,
    "index": _index, "index_put": _index_put, "gather": _gathering, "scatter": _gathering,
    "scatter_add": _gathering, "index_add": _gathering,
}


_KINDS: dict[str, Rule] = {POINTWISE: pointwise, REDUCTION: reduction, UNARY: unary}


# -- in place -----------------------------------------------------------------------------------

def inplace_rule(op: "Op", bound: dict, level: int, inner: Callable, rule: Rule) -> Any:
    """``x.op_(...)``: the physical write into ``x``'s own value; ``x`` itself is the result.  An
    unbatched ``x`` cannot take a batch of results (PyTorch's message)."""
    target = bound["self"]
    if not (isinstance(target, BatchedTensor) and target._level == level):
        _refuse_unbatched_target(op, bound, level)
    if op.vmap in _KINDS or op.vmap == DIMS:
        rule(op, bound, level, inner)   # (these rules rewrite the call: the write goes to self's value)
    else:
        # a rule of its own computes the result from other ops: written into self afterwards
        from ..dispatch.runner import run_wrapped
        from .dispatch import wrap
        target.copy_(wrap(rule(op, bound, level, run_wrapped), level))
    return target


# In-place ops whose batch rule refuses a batched value for an unbatched self before any shape
# check, and those PyTorch runs through its fallback (whose message names the aten op), measured
# on PyTorch 2.13; the others check the physical shapes first.
_REFUSED_AT_ONCE = frozenset({"mul", "div", "sub", "copy"})
_FALLBACK = frozenset({"addcmul", "addcdiv", "lerp", "clamp", "pow"})


def _refuse_unbatched_target(op: "Op", bound: dict, level: int) -> None:
    """PyTorch's errors for a batched value written into an unbatched tensor: the shapes' own
    error when the physical shapes do not fit the target (for the ops that check them), else vmap's."""
    from ..shape_rules import broadcast_shapes, list_str
    target = tuple(bound["self"].shape)
    for key, value in bound.items():
        if key == "self" or not (isinstance(value, BatchedTensor) and value._level == level):
            continue
        if op.name not in _FALLBACK and op.name not in _REFUSED_AT_ONCE:
            shape = broadcast_shapes(target, tuple(at_front(value, level)[0].shape))
            if shape != target:
                raise TorchRuntimeError(f"output with shape {list_str(target)} doesn't match the broadcast shape "
                                        f"{list_str(shape)}")
        name = f"aten::{op.name}_" if op.name in _FALLBACK else "inplace arithmetic"
        raise TorchRuntimeError(
            f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `{key}` in "
            "extra_args that has more elements than `self`. This happened due to `other` being vmapped over but "
            "`self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of "
            "inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug "
            "report instead.")
