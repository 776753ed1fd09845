"""``nll_loss`` and ``cross_entropy`` by ATen's decomposition.

``nll_loss`` of a 1-d or 2-d input is ``NllLossBackward0``, of a 4-d input
``NllLoss2DBackward0``; other ranks are viewed as 4-d (``ViewBackward0``
around ``NllLoss2DBackward0``).  ``cross_entropy`` is ``log_softmax`` over the
class dim followed by ``nll_loss``; with ``label_smoothing`` it adds a
smoothing term built from ordinary ops (PyTorch multiplies by C++ Scalars
there: ``MulBackward1``), and with class probabilities as target it is
``-(log_softmax * target).sum() / batch`` (``DivBackward1``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.op import LINEAR
from ..autograd.formulas import d
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.signature import LazyParser
from ..errors import TorchIndexError, TorchNotImplementedError, TorchRuntimeError, TorchValueError
from ..kernels.summation import nll_cascade_sum
from ..ops import reductions
from ..ops.arithmetic import div_scalar, mul_scalar
from ..ops.backward_ops import call, grad_op, zeros
from ..shape_rules import list_str
from ..tensor import Tensor
from .reduction import MEAN, NONE, SUM, get_enum, no_grad_argument, reduction_of

CATALOG = Catalog()
defop = CATALOG.defop


def _picked(b: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per target entry: its class (0 where ignored), whether it counts, its weight (0 where ignored),
    and the targets as int64."""
    x, t, w = b["self"], b["target"], b["weight"]
    target = t._data.astype(np.int64)
    n_classes = x.shape[1] if x.ndim >= 2 else x.shape[0]
    keep = target != b["ignore_index"]
    bad = keep & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise TorchIndexError(f"Target {target[bad].flat[0]} is out of bounds.")
    cls = np.where(keep, target, 0)
    weights = (w._data[cls] if w is not None else np.ones(cls.shape, dtype=x._data.dtype)).astype(x._data.dtype)
    return cls, keep, np.where(keep, weights, weights.dtype.type(0)), target


def _class_values(a: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """``a[..., cls, ...]`` along the class dim (dim 1, or 0 for a 1-d input)."""
    if a.ndim == 1:
        return a[cls]
    return np.take_along_axis(a, np.expand_dims(cls, 1), 1).squeeze(1)


def _nll_forward(b: dict) -> Any:
    x = b["self"]
    a = x._data
    cls, keep, weights, _ = _picked(b)
    losses = -_class_values(a, cls) * weights
    losses = np.where(keep, losses, a.dtype.type(0))
    if b["reduction"] == NONE and a.ndim != 1:
        return losses
    flat_keep = keep.reshape(-1)
    at = np.flatnonzero(flat_keep)
    total = nll_cascade_sum(losses.reshape(-1)[flat_keep], at)
    if b["reduction"] == MEAN:
        if cls.size == 0:
            return np.asarray(np.nan, dtype=a.dtype)
        return np.asarray(total / _total_weight(b["weight"], weights, keep))
    return np.asarray(total)


def _total_weight(weight: Any, weights: np.ndarray, keep: np.ndarray) -> Any:
    """The mean's divisor as PyTorch's kernel sums it: the count of counted targets without a
    weight, else their weights through the same cascade as the losses."""
    if weight is None:
        return weights.dtype.type(int(np.count_nonzero(keep)))
    flat_keep = keep.reshape(-1)
    return nll_cascade_sum(weights.reshape(-1)[flat_keep], np.flatnonzero(flat_keep))


def _nll_grad(g: Tensor, s: Any) -> Tensor:
    """-weight[target] at each target's class, times the incoming gradient (0 where ignored)."""
    x = s.self
    cls, keep, weights, _ = _picked({"self": x, "target": s.target, "weight": s.weight,
                                     "ignore_index": s.ignore_index})
    zero = weights.dtype.type(0)
    if s.reduction != NONE or x.ndim == 1:
        # PyTorch's kernel: grad = -(grad_output / total) for a mean, -grad_output for a sum,
        # then weight * grad at each counted target (the division rounds once, before the weight)
        go = np.asarray(g._data, dtype=weights.dtype).reshape(())[()]
        if s.reduction == MEAN:
            go = go / _total_weight(s.weight, weights, keep)
        grad = -go
        scale = np.where(keep, weights * grad if s.weight is not None else grad, zero)
    else:
        scale = np.where(keep, -weights, zero)
    pattern = np.zeros(x.shape, dtype=x._data.dtype)
    if x.ndim == 1:
        pattern[cls] = scale
    else:
        np.put_along_axis(pattern, np.expand_dims(cls, 1), np.expand_dims(scale, 1), 1)
    mask = Tensor._make(pattern)
    if s.reduction == NONE and x.ndim != 1:
        return mask * g.unsqueeze(1)
    return mask


def _nll_op(name: str, node: str) -> tuple[Any, Any]:
    """The loss op and its gradient op (PyTorch's ``<name>_backward``: its derivative for the
    incoming gradient is the loss itself, for the input 0)."""
    args = ("target", "weight", "reduction", "ignore_index")
    loss: Any = None
    grad = grad_op(CATALOG, f"{name}_backward", node.replace("Backward0", "BackwardBackward0"),
                   lambda b: _nll_grad(b.grad_output, b), d(rule="0 (the gradient does not depend on self)")(zeros),
                   extra={"grad_output": d("target", "weight", rule=f"{name}(grad, target, weight, reduction)")(
                       lambda gg, s: run(loss, {"self": gg, **{k: getattr(s, k) for k in args}}))})
    loss = defop(name, f"{name}(Tensor input, Tensor target, Tensor? weight=None, int reduction=1, "
                       "int ignore_index=-100)", _nll_forward, node=node, inputs=("self",), function=False, jvp=LINEAR,
                 vmap="nll_loss" if name == "nll_loss" else None,
                 method=False, exposes=("ignore_index", "reduction", "weight"),
                 derivs={"self": d("self", "target", "weight",
                                   rule="-grad * weight[target] at each target's class, else 0 (mean: / total weight)")(
                     lambda g, s: call(grad, g, self=s.self, **{k: getattr(s, k) for k in args}))})
    return loss, grad


NLL, NLL_GRAD = _nll_op("nll_loss", "NllLossBackward0")
NLL2D, NLL2D_GRAD = _nll_op("nll_loss2d", "NllLoss2DBackward0")


def _check_target_dtype(target: Tensor) -> None:
    if target._dtype.name != "int64":
        raise TorchRuntimeError(f"expected target dtype to be Long or Byte, but got {target._dtype.legacy_name}")


def _check_weight_dtype(weight: Tensor | None, input: Tensor) -> None:  # noqa: A002
    if weight is not None and weight._dtype is not input._dtype:
        raise TorchRuntimeError(
            f"expected scalar type {input._dtype.legacy_name} but found {weight._dtype.legacy_name}")


def _check_floating(input: Tensor, kernel: str) -> None:  # noqa: A002
    if not input._dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{input._dtype.legacy_name}'")


def _nll_1d_2d(x: Tensor, t: Tensor, w: Tensor | None, reduction: int, ignore: int) -> Tensor:
    no_grad_argument(w, "weight", "nll_loss_forward")
    _check_target_dtype(t)
    if not 0 < x.ndim <= 2:
        raise TorchRuntimeError("input tensor should be 1D or 2D")
    if t.ndim > 1:
        raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim == 1 and t.ndim == 1:
        if t.shape[0] != 1:
            raise TorchValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
        t = t.reshape(())
    if not (x.ndim == 1 and t.ndim == 0) and x.shape[0] != (t.shape[0] if t.ndim else 0):
        raise TorchRuntimeError(f"size mismatch (got input: {list_str(x.shape)}, target: {list_str(t.shape)})")
    n_classes = x.shape[-1]
    if w is not None and (w.ndim != 1 or w.numel() != n_classes):
        raise TorchRuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                                f"but got weight tensor of shape: {list_str(w.shape)}")
    _check_weight_dtype(w, x)
    _check_floating(x, "nll_loss_out_frame")
    return run(NLL, {"self": x, "target": t, "weight": w, "reduction": reduction, "ignore_index": ignore})


def _nll_2d(x: Tensor, t: Tensor, w: Tensor | None, reduction: int, ignore: int) -> Tensor:
    no_grad_argument(w, "weight", "nll_loss2d_forward")
    _check_target_dtype(t)
    if t.ndim != 3:
        raise TorchRuntimeError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {t.ndim}")
    if x.ndim != 4:
        raise TorchRuntimeError(
            f"only batches of spatial inputs supported (4D tensors), but got input of dimension: {x.ndim}")
    if w is not None and w.numel() != x.shape[1]:
        raise TorchRuntimeError("weight tensor should be defined either for all or no classes")
    if (x.shape[0], x.shape[2], x.shape[3]) != tuple(t.shape):
        raise TorchRuntimeError(f"size mismatch (got input: {list_str(x.shape)} , target: {list_str(t.shape)}")
    _check_weight_dtype(w, x)
    _check_floating(x, "nll_loss2d_forward_out_frame")
    return run(NLL2D, {"self": x, "target": t, "weight": w, "reduction": reduction, "ignore_index": ignore})


def nll_loss_nd(x: Tensor, t: Tensor, w: Tensor | None, reduction: int, ignore: int) -> Tensor:
    """ATen's ``nll_loss_nd``: picks the 1-d/2-d kernel, the 4-d kernel, or views other ranks as 4-d."""
    if x.ndim < 1:
        raise TorchValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and x.shape[0] != (t.shape[0] if t.ndim else 0):
        raise TorchValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                              f"({t.shape[0] if t.ndim else 0}).")
    if x.ndim <= 2:
        return _nll_1d_2d(x, t, w, reduction, ignore)
    if x.ndim == 4:
        return _nll_2d(x, t, w, reduction, ignore)
    n, c = x.shape[0], x.shape[1]
    out_size = (n,) + tuple(x.shape[2:])
    if tuple(t.shape[1:]) != tuple(x.shape[2:]):
        raise TorchRuntimeError(f"Expected target size {list_str(out_size)}, got {list_str(t.shape)}")
    x = x.contiguous()
    t = t.contiguous()
    x = x.view(n, c, 1, -1) if x.numel() > 0 else x.view(n, c, 0, 0)
    t = t.view(n, 1, -1) if t.numel() > 0 else t.view(n, 0, 0)
    out = _nll_2d(x, t, w, reduction, ignore)
    return out.view(out_size) if reduction == NONE else out


_NLL_ND = LazyParser("nll_loss_nd(Tensor input, Tensor target, Tensor? weight=None, int reduction=1, "
                     "int ignore_index=-100)")


def nll_loss(input: Any, target: Any, weight: Any = None, size_average: Any = None,  # noqa: A002
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = reduction_of(size_average, reduce, reduction)
    _, b = _NLL_ND.parse((input, target, weight, get_enum(reduction), ignore_index), {})
    return nll_loss_nd(b["input"], b["target"], b["weight"], b["reduction"], b["ignore_index"])


# -- cross_entropy ------------------------------------------------------------------------------------

def _log_softmax(x: Tensor, dim: int) -> Tensor:
    # at::log_softmax(self, dim, self.scalar_type()): integer inputs fail in the kernel
    return x.log_softmax(dim)


def _class_dim_size(x: Tensor, dim: int) -> int:
    if x.ndim == 0:
        raise TorchIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return x.shape[dim]


def _weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape) if ndim > 1 else weight


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise TorchRuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {_c_double(label_smoothing)}")


def _c_double(value: float) -> str:
    """A double as C++ streams print it (6 significant digits)."""
    return f"{value:g}"


def _prob_target(x: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ls: float) -> Tensor:
    class_dim = 0 if x.ndim == 1 else 1
    n_classes = _class_dim_size(x, class_dim)
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise TorchRuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
                                f"or no classes but got weight tensor of shape: {list_str(weight.shape)}")
    logp = _log_softmax(x, class_dim)
    if ls > 0.0:
        _check_smoothing(ls)
        target = target * (1 - ls) + ls / n_classes
    product = logp * target
    if weight is not None:
        product = product * _weight_view(weight, logp.ndim, class_dim)
    if reduction == MEAN:
        if logp.numel() == 0:
            return -reductions.SUM(product).fill_(float("nan"))
        return div_scalar(-reductions.SUM(product), logp.numel() // n_classes)
    if reduction == SUM:
        return -reductions.SUM(product)
    return -product.sum(class_dim)


def _label_smoothing(x: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore: int,
                     ls: float) -> Tensor:
    class_dim = 0 if x.ndim == 1 else 1
    logp = _log_softmax(x, class_dim)
    nll = nll_loss_nd(logp, target, weight, reduction, ignore)
    n_classes = logp.shape[class_dim]
    if weight is not None:
        smooth = -(logp * _weight_view(weight, logp.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target == ignore
    smooth.masked_fill_(ignored, 0.0)
    if reduction == MEAN:
        if weight is not None:
            kept = target.masked_select(ignored.logical_not()).flatten()
            ret = reductions.SUM(smooth) / reductions.SUM(weight.gather(0, kept))
        else:
            ret = reductions.SUM(smooth) / reductions.SUM(ignored.logical_not())
    elif reduction == SUM:
        ret = reductions.SUM(smooth)
    else:
        ret = smooth
    return mul_scalar(nll, 1 - ls) + mul_scalar(ret, ls / n_classes)


def cross_entropy_loss(x: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore: int,
                       ls: float) -> Tensor:
    """ATen's ``cross_entropy_loss``."""
    if tuple(x.shape) == tuple(target.shape):
        # Same shapes: the target holds class probabilities.
        if not target._dtype.is_floating_point:
            raise TorchRuntimeError(
                f"Expected floating point type for target with class probabilities, got {target._dtype.legacy_name}")
        if ignore >= 0:
            raise TorchRuntimeError("ignore_index is not supported for floating point target")
        return _prob_target(x, target, weight, reduction, ls)
    if ls > 0.0:
        _check_smoothing(ls)
        return _label_smoothing(x, target, weight, reduction, ignore, ls)
    class_dim = 0 if x.ndim == 1 else 1
    return nll_loss_nd(_log_softmax(x, class_dim), target, weight, reduction, ignore)


_CROSS_ENTROPY = LazyParser("cross_entropy_loss(Tensor input, Tensor target, Tensor? weight=None, int reduction=1, "
                            "int ignore_index=-100, float label_smoothing=0.0)")


def cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    reduction = reduction_of(size_average, reduce, reduction)
    _, b = _CROSS_ENTROPY.parse((input, target, weight, get_enum(reduction), ignore_index, label_smoothing), {})
    return cross_entropy_loss(b["input"], b["target"], b["weight"], b["reduction"], b["ignore_index"],
                              b["label_smoothing"])
