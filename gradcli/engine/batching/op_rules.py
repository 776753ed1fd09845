"""Batch rules of single ops that need their own (``Op.vmap`` names them): the matrix products, the
losses, convolution and pooling.  Each follows functorch's rule or decomposition for the op."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor
from . import state
from .batched_tensor import BatchedTensor, at_front
from .rules import pointwise

if TYPE_CHECKING:
    from ..dispatch.op import Op


def _two(bound: dict, first: str, second: str, level: int) -> tuple[Tensor, bool, Tensor, bool]:
    a, a_batched = at_front(bound[first], level)
    b, b_batched = at_front(bound[second], level)
    return a, a_batched, b, b_batched


def _check_rank(value: Tensor, rank: int, message: str) -> None:
    if value.dim() != rank:
        raise TorchRuntimeError(message)


def _check_ranks(name: str, a: Tensor, b: Tensor, want_a: int, want_b: int) -> None:
    """functorch's check of a product's logical ranks (its message, spaces as PyTorch has them)."""
    if a.dim() != want_a or b.dim() != want_b:
        raise TorchRuntimeError(f"Shape mismatch: Got incorrect dims for {name}(a, b). a has dim {a.dim()}and b has "
                                f"dim {b.dim()}but expected them to have dim {want_a} and dim {want_b}")


def dot(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    if bound["self"].dim() != 1 or bound["tensor"].dim() != 1:
        raise TorchRuntimeError("Got wrong shapes for dot")
    a, a_batched, b, b_batched = _two(bound, "self", "tensor", level)
    if a_batched and b_batched:
        return (a.unsqueeze(-2) @ b.unsqueeze(-1)).squeeze(-1).squeeze(-1)
    # (dot is symmetric: the batched operand as the matrix of an mv)
    return a.mv(b) if a_batched else b.mv(a)


def mv(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    _check_ranks("mv", bound["self"], bound["vec"], 2, 1)
    m, m_batched, v, v_batched = _two(bound, "self", "vec", level)
    if m_batched and v_batched:
        return (m @ v.unsqueeze(-1)).squeeze(-1)
    return m @ v if m_batched else v.mm(m.t())


def mm(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    _check_ranks("mm", bound["self"], bound["mat2"], 2, 2)
    a, a_batched, b, b_batched = _two(bound, "self", "mat2", level)
    if a_batched and b_batched:
        return a.bmm(b)
    return a @ b


def bmm(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    _check_ranks("bmm", bound["self"], bound["mat2"], 3, 3)
    a, a_batched, b, b_batched = _two(bound, "self", "mat2", level)
    if a_batched and b_batched:
        size, batch = a.shape[0], a.shape[1]
        out = a.flatten(0, 1).bmm(b.flatten(0, 1))
        return out.view((size, batch) + tuple(out.shape[1:]))
    return a @ b


def addmm(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    # functorch's addmm_decomp: self * beta + mm(mat1, mat2) * alpha, as logical ops
    from ..ops.matmul import MM
    product = MM(bound["mat1"], bound["mat2"])
    return (bound["self"] * bound.get("beta", 1)).add(product, alpha=bound.get("alpha", 1))


def trace(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    _check_rank(bound["self"], 2, "trace: expected a matrix, but got tensor with dim " + str(bound["self"].dim()))
    return bound["self"].diagonal().sum()


def _batched_here(value: Any, level: int) -> bool:
    return isinstance(value, BatchedTensor) and value._level == level


def masked_fill(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """A batch of fill values (a 0-dim value per sample): where(mask, value, self)."""
    if not _batched_here(bound["value"], level):
        return pointwise(op, bound, level, inner)
    x = bound["self"]
    return bound["value"].to(x.dtype).where(bound["mask"], x)


def fill(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """fill_ with a batch of 0-dim values: each sample filled with its own."""
    if not _batched_here(bound["value"], level):
        return pointwise(op, bound, level, inner)
    x = bound["self"]
    return bound["value"].to(x.dtype).expand(list(x.shape)).clone()


def take(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    return bound["self"].reshape(-1)[bound["index"]]


def diagonal_copy(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    return bound["self"].diagonal(bound.get("offset", 0), 0, 1).clone()


def embed(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """A view's gradient put into zeros of its base's shape (in a batched backward): the view of
    a batch of zeros written in place."""
    g = bound["self"]
    zeros = np.zeros((_batch_of(g, level),) + tuple(bound["shape"]), dtype=g._dtype.np)
    out = BatchedTensor.wrap(Tensor._make(zeros, g._dtype), 0, level)
    bound["region"](out).copy_(g)
    return out


def _batch_of(value: Any, level: int) -> int:
    return value._batch_size if isinstance(value, BatchedTensor) and value._level == level else state.sizes[level - 1]


def masked_select(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """The same mask for every sample selects as many elements from each: indexing by it; a batched
    mask would select a different count per sample (PyTorch's error)."""
    x, mask = bound["self"], bound["mask"]
    if isinstance(mask, BatchedTensor) and mask._level == level:
        raise TorchRuntimeError("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot "
                                "support this because for each batch this would return a differently shaped Tensor. "
                                "Please file an issue at https://github.com/pytorch/pytorch/issues if you need this "
                                "feature.")
    from ..shape_rules import broadcast_shapes
    shape = list(broadcast_shapes(tuple(x.shape), tuple(mask.shape)))
    return x.expand(shape)[mask.expand(shape)]


def random_of_batch(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """A sampler of batched parameters (normal(mean), bernoulli(p)): randomness="different" draws
    for the physical batch, batch first; "same" cannot share a draw between different parameters
    (PyTorch's message)."""
    from .randomness import RANDOM_ERROR, batched_draw
    mode = state.randomness[level - 1]
    if mode == "error":
        raise TorchRuntimeError(RANDOM_ERROR)
    if mode == "same":
        raise TorchRuntimeError("Vmap does not currently support same randomness with a batched tensor input. "
                                "Please file an issue with functorch")
    size = _batch_of(next(v for v in bound.values() if _batched_here(v, level)), level)
    new = {k: (_expanded_contiguous(v, level, size) if isinstance(v, Tensor) else v) for k, v in bound.items()}
    with batched_draw():
        return inner(op, new)


def _expanded_contiguous(value: Tensor, level: int, size: int) -> Tensor:
    from .rules import _expanded
    if isinstance(value, BatchedTensor) or value.dim() > 0:
        return _expanded(value, level, size).contiguous()
    return value   # (a number's 0-dim tensor broadcasts as it is)


# -- losses ---------------------------------------------------------------------------------------

_MEAN, _SUM = 1, 2


def reduced_loss(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """mse_loss, smooth_l1_loss, binary_cross_entropy, ...: per element without reduction, then the
    reduction over each sample's elements."""
    reduction = bound.get("reduction", _MEAN)
    unreduced = BatchedTensor.wrap(pointwise(op, dict(bound, reduction=0), level, inner), 0, level)
    if reduction == _MEAN:
        return unreduced.mean()
    if reduction == _SUM:
        return unreduced.sum()
    return unreduced


def nll_loss(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """functorch's nll_loss decomposition: the targets' log-probabilities picked by gather, weighted,
    the ignored targets zeroed, then the reduction (a mean divides by the total weight)."""
    x, target, weight = bound["self"], bound["target"], bound.get("weight")
    ignore, reduction = bound.get("ignore_index", -100), bound.get("reduction", _MEAN)
    if x.dim() not in (1, 2):
        raise TorchNotImplementedError("gradcli does not support vmap over nll_loss of inputs with more than "
                                       "2 dims yet")
    channel = 0 if x.dim() == 1 else 1
    kept = target != ignore
    safe = target * kept
    picked = -x.gather(channel, safe.unsqueeze(channel)).squeeze(channel)
    w = kept.to(x.dtype) if weight is None else weight[safe] * kept
    losses = picked * w
    if reduction == _MEAN:
        return losses.sum() / w.sum()
    if reduction == _SUM:
        return losses.sum()
    return losses


# -- convolution and pooling: the vmapped batch folded into the op's own batch ---------------------

def _folded(spatial_inputs: int) -> Callable:
    """A rule for an op whose input is (N, C, *spatial) or (C, *spatial) with ``spatial_inputs``
    spatial dims: only the input may be batched; its batch joins N."""
    def rule(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
        x, batched = at_front(bound["self"], level)
        if not batched or any(isinstance(v, BatchedTensor) and v._level == level
                              for k, v in bound.items() if k != "self"):
            raise TorchNotImplementedError(f"gradcli does not support vmap over {op.name} with a batched "
                                           "weight yet")
        unbatched_rank = spatial_inputs + 1
        if bound["self"].dim() == unbatched_rank:   # (C, *spatial): the vmapped batch is N
            return inner(op, dict(bound, self=x))
        size, n = x.shape[0], x.shape[1]
        result = inner(op, dict(bound, self=x.flatten(0, 1)))
        unfold = lambda r: r.view((size, n) + tuple(r.shape[1:]))  # noqa: E731
        return tuple(unfold(r) for r in result) if isinstance(result, tuple) else unfold(result)
    return rule


def embedding(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    weight, w_batched = at_front(bound["weight"], level)
    if w_batched:
        raise TorchNotImplementedError("gradcli does not support vmap over embedding with a batched weight yet")
    indices, _ = at_front(bound["indices"], level)
    return inner(op, dict(bound, indices=indices))


def convolution(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    spatial = bound["weight"].dim() - 2
    if isinstance(bound["weight"], BatchedTensor) and bound["weight"]._level == level:
        return _grouped_convolution(op, bound, level, inner, spatial)
    return _folded(spatial)(op, bound, level, inner)


def _grouped_convolution(op: "Op", bound: dict, level: int, inner: Callable, spatial: int) -> Any:
    """A batch of weights (each sample its own filters, as in per-sample gradients): the samples
    side by side as channel groups of one convolution (functorch's rule), groups times the batch."""
    from .rules import _expanded
    if bound.get("transposed"):
        raise TorchNotImplementedError("gradcli does not support vmap over a transposed convolution with a "
                                       "batched weight yet")
    x = bound["self"]
    unbatched_input = x.dim() == spatial + 1
    size = bound["weight"]._batch_size
    xs = _expanded(x, level, size)                       # (B, [N,] C, *spatial)
    if unbatched_input:
        xs = xs.unsqueeze(1)
    n, channels = xs.shape[1], xs.shape[2]
    grouped = xs.movedim(0, 1).reshape([n, size * channels] + list(xs.shape[3:]))
    weight, _ = at_front(bound["weight"], level)         # (B, O, C / groups, *kernel)
    outputs = weight.shape[1]
    bias = bound.get("bias")
    if bias is not None:
        bias = _expanded(bias, level, size).flatten(0, 1)
    out = inner(op, dict(bound, self=grouped, weight=weight.flatten(0, 1), bias=bias,
                         groups=bound["groups"] * size))  # (N, B * O, *spatial')
    out = out.view([n, size, outputs] + list(out.shape[2:])).movedim(1, 0)
    return out.squeeze(1) if unbatched_input else out


pooling2d = _folded(2)


def padding(op: "Op", bound: dict, level: int, inner: Callable) -> Any:
    """reflection_pad{1,2,3}d and replication_pad{1,2,3}d (their backward ops have no rule)."""
    if op.name.endswith("_backward"):
        raise TorchNotImplementedError(f"gradcli does not support vmap over {op.name} yet")
    return _folded(int(op.name[-2]))(op, bound, level, inner)
