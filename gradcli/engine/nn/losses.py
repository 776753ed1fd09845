"""Regression and binary losses of ``torch.nn.functional``.

PyTorch's fused losses are one op each here with PyTorch's node
(``MseLossBackward0``, ``SmoothL1LossBackward0``, ``HuberLossBackward0``,
``BinaryCrossEntropyBackward0``, ``BinaryCrossEntropyWithLogitsBackward0``);
its composite ones are composed from the same ops it uses (``l1_loss`` is
``(input - target).abs().mean()``, ``kl_div`` is ``xlogy(t, t) - t * input``,
weighted ``mse_loss`` is ``pow``/``mul``/``sum``/``div``), so every node
matches.  The ``F.*`` functions check and warn in PyTorch's order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formulas import d
from ..dispatch.promotion import arr, binary_arrays, promote
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchAttributeError, TorchNotImplementedError, TorchRuntimeError, TorchValueError
from ..kernels.float32_math import log1p as LOG1P, wide
from ..ops import reductions
from ..ops.arithmetic import add_scalar, div_scalar
from ..ops.backward_ops import call
from ..ops.pointwise_binary import XLOGY
from ..shape_rules import broadcast_shapes, list_str
from ..tensor import Tensor
from ..warnings import warn
from . import activation_kernels
from . import loss_backward as G
from .loss_backward import MEAN_NOTE
from .activations import log_sigmoid
from .reduction import (MEAN, NONE, SUM, attribute, broadcast_pair, get_enum, grad_norm, invalid_reduction,
                        no_grad_argument, reduce_array, reduction_of, size_of, warn_size_mismatch)

CATALOG = Catalog()
defop = CATALOG.defop

LOG = wide(np.log)


def _pair_arrays(b: dict, kernel: str) -> tuple[np.ndarray, np.ndarray]:
    """Input and target in their common dtype, which must be floating."""
    x, t = b["self"], b["target"]
    rt = promote(x, t)
    if not rt.is_floating_point:
        raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{rt.legacy_name}'")
    return arr(x, rt), arr(t, rt)


def _loss_op(name: str, node: str, forward: Any, grad: Any, rule: str, option: str = "") -> Any:
    """A fused pointwise loss whose gradient is PyTorch's ``<name>_backward`` op ``grad``; the
    target's gradient is the same op with input and target swapped, as in PyTorch.  ``rule`` is
    self's gradient in words (it starts with grad; target's is its negative)."""
    sig = f"{name}(Tensor input, Tensor target, int reduction=1{', float ' + option + '=1.0' if option else ''})"

    def gradient(g: Tensor, s: Any, swap: bool) -> Tensor:
        x, t = (s.target, s.self) if swap else (s.self, s.target)
        extra = {option: getattr(s, option)} if option else {}
        return call(grad, g, self=x, target=t, reduction=s.reduction, **extra)
    return defop(name, sig, forward, node=node, inputs=("self", "target"), function=False, method=False,
                 vmap="reduced_loss",
                 exposes=(option, "reduction") if option else ("reduction",),
                 derivs={"self": d("self", "target", rule=rule + MEAN_NOTE)(lambda g, s: gradient(g, s, False)),
                         "target": d("self", "target", rule="-" + rule + MEAN_NOTE)(
                             lambda g, s: gradient(g, s, True))})


# -- mse / smooth_l1 / huber ----------------------------------------------------------------------

def _mse_forward(b: dict) -> Any:
    x, t = _pair_arrays(b, "mse_cpu")
    diff = x - t
    return reduce_array(diff * diff, b["reduction"])


MSE = _loss_op("mse_loss", "MseLossBackward0", _mse_forward, G.MSE, "grad * 2 * (self - target)")


def _smooth_l1_forward(b: dict) -> Any:
    x, t = _pair_arrays(b, "smooth_l1_cpu")
    beta = x.dtype.type(b["beta"])
    z = np.abs(x - t)
    half = x.dtype.type(0.5)
    return reduce_array(np.where(z < beta, half * z * z / beta, z - half * beta), b["reduction"])


SMOOTH_L1 = _loss_op("smooth_l1_loss", "SmoothL1LossBackward0", _smooth_l1_forward, G.SMOOTH_L1,
                     "grad * clamp((self - target) / beta, -1, 1)", "beta")


def _huber_forward(b: dict) -> Any:
    x, t = _pair_arrays(b, "huber_cpu")
    delta = x.dtype.type(b["delta"])
    z = np.abs(x - t)
    half = x.dtype.type(0.5)
    return reduce_array(np.where(z < delta, half * z * z, delta * (z - half * delta)), b["reduction"])


HUBER = _loss_op("huber_loss", "HuberLossBackward0", _huber_forward, G.HUBER,
                 "grad * clamp(self - target, -delta, delta)", "delta")


def _run_pair(op: Any, x: Tensor, t: Tensor, reduction: int, **extra: Any) -> Tensor:
    return run(op, {"self": x, "target": t, "reduction": reduction, **extra})


def _weighted(loss: Tensor, weight: Tensor, reduction: Any, mean_by_weight: bool) -> Tensor:
    """The Python branch of PyTorch's weighted regression losses."""
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return reductions.SUM(weighted)
    if reduction == "mean":
        return reductions.SUM(weighted) / reductions.SUM(weight) if mean_by_weight else weighted.mean()
    raise invalid_reduction(reduction)


def _check_weight_size(weight: Any, input: Any) -> None:  # noqa: A002
    if size_of(weight) != size_of(input):
        raise TorchValueError("Weights and input must have the same size.")


def mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
             reduction: str = "mean", weight: Any = None) -> Tensor:
    warn_size_mismatch(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    x, t = broadcast_pair(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted((x - t).pow(2), weight, reduction, mean_by_weight=True)
    return _run_pair(MSE, x, t, get_enum(reduction))


def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
            reduction: str = "mean", weight: Any = None) -> Tensor:
    warn_size_mismatch(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    x, t = broadcast_pair(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted((x - t).abs(), weight, reduction, mean_by_weight=True)
    return _l1(x, t, get_enum(reduction))


def _l1(x: Tensor, t: Tensor, reduction: int) -> Tensor:
    """ATen's composite ``l1_loss``: abs of the difference, then mean or sum."""
    loss = (x - t).abs()
    if reduction == MEAN:
        return loss.mean()
    return reductions.SUM(loss) if reduction == SUM else loss


def smooth_l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    warn_size_mismatch(input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    x, t = broadcast_pair(input, target)
    if beta == 0.0:
        return _l1(x, t, get_enum(reduction))
    enum = get_enum(reduction)
    if beta < 0:
        raise TorchRuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _run_pair(SMOOTH_L1, x, t, enum, beta=float(beta))


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight: Any = None) -> Tensor:
    warn_size_mismatch(input, target)
    x, t = broadcast_pair(input, target)
    if weight is None:
        return _huber(x, t, get_enum(reduction), delta)
    _check_weight_size(weight, input)
    return _weighted(_huber(x, t, NONE, delta), weight, reduction, mean_by_weight=False)


def _huber(x: Tensor, t: Tensor, reduction: int, delta: float) -> Tensor:
    if delta <= 0:
        raise TorchRuntimeError("huber_loss does not support non-positive values for delta.")
    return _run_pair(HUBER, x, t, reduction, delta=float(delta))


# -- binary cross entropy -----------------------------------------------------------------------

def _bce_forward(b: dict) -> Any:
    x, t, w = b["self"], b["target"], b["weight"]
    if t._dtype is not x._dtype:
        raise TorchRuntimeError(f"Found dtype {t._dtype.legacy_name} but expected {x._dtype.legacy_name}")
    if not x._dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"binary_cross_entropy\" not implemented for '{x._dtype.legacy_name}'")
    p, y = x._data, t._data
    if not np.all((p >= 0) & (p <= 1)):  # NaN fails too
        raise TorchRuntimeError("all elements of input should be between 0 and 1")
    floor = p.dtype.type(-100)
    one = p.dtype.type(1)
    # Each log is clamped at -100, so p = 0 or 1 gives a finite loss.
    loss = (y - one) * np.maximum(LOG1P(-p), floor) - y * np.maximum(LOG(p), floor)
    if w is not None:
        loss = _times_in_place(loss, w)
    return reduce_array(loss, b["reduction"])


def _times_in_place(loss: np.ndarray, w: Tensor) -> np.ndarray:
    """``loss.mul_(weight)``: the weight may not grow the loss's shape, nor change its dtype."""
    shape = np.broadcast_shapes(loss.shape, w._data.shape) if loss.shape != w._data.shape else loss.shape
    if shape != loss.shape:
        raise TorchRuntimeError(f"output with shape {list_str(loss.shape)} doesn't match the broadcast shape "
                                f"{list_str(shape)}")
    return (loss * w._data).astype(loss.dtype)


def _bce_input_grad(g: Tensor, s: Any) -> Tensor:
    bound = {"grad_output": g, "self": s.self, "target": s.target, "weight": s.weight, "reduction": s.reduction}
    return run(BCE_BACKWARD, bound)


# -- the gradient of binary_cross_entropy as an op of its own, as in PyTorch: its derivatives are
#    PyTorch's double-backward formulas (no cancellation near p = 0 or 1 in float32).
_EPS = 1e-12


def _bce_backward_forward(b: dict) -> Any:
    g, x, t, w = b["grad_output"]._data, b["self"]._data, b["target"]._data, b["weight"]
    one = x.dtype.type(1)
    out = g * (x - t) / np.maximum((one - x) * x, x.dtype.type(_EPS))
    if w is not None:
        out = out * w._data
    if b["reduction"] == MEAN:
        out = out / x.dtype.type(x.size)
    return np.asarray(out, dtype=x.dtype)


# binary_cross_entropy's gradient for self (weight 1 when none is given)
BCE_RULE = "grad * weight * (self - target) / (self * (1 - self))" + MEAN_NOTE


def _mean_scaled(v: Tensor, s: Any) -> Tensor:
    if s.weight is not None:
        v = v * s.weight
    return v * grad_norm(s) if s.reduction == MEAN else v


BCE_BACKWARD = defop(
    "binary_cross_entropy_backward",
    "binary_cross_entropy_backward(Tensor grad_output, Tensor input, Tensor target, Tensor? weight=None, "
    "int reduction=1)", _bce_backward_forward, node="BinaryCrossEntropyBackwardBackward0",
    inputs=("grad_output", "self", "target"), function=False, method=False,
    derivs={
        "grad_output": d("self", "target", "weight", rule=BCE_RULE)(
            lambda g, s: _mean_scaled(g * (s.self - s.target) / ((s.self + _EPS) * (1 - s.self + _EPS)), s)),
        "self": d("grad_output", "self", "target", "weight",
                  rule="grad * grad_output * weight * (self^2 - 2 * self * target + target) / (self * (1 - self))^2"
                  + MEAN_NOTE)(
            lambda g, s: _mean_scaled(g * s.grad_output * (s.self * s.self - 2 * s.self * s.target + s.target)
                                      / ((s.self + _EPS).pow(2) * (1 - s.self + _EPS).pow(2)), s)),
        "target": d("grad_output", "self", "weight", rule="-grad * grad_output * weight / (self * (1 - self))"
                    + MEAN_NOTE)(
            lambda g, s: _mean_scaled(-g * s.grad_output / ((1 - s.self) * s.self).clamp_min(_EPS), s)),
    })


def _bce_target_grad(g: Tensor, s: Any) -> Tensor:
    # PyTorch's binary_cross_entropy_target_backward: -logit(x) * grad [* weight] [/ numel]
    grad = -s.self.logit() * g
    if s.weight is not None:
        grad = grad * s.weight
    return div_scalar(grad, s.self.numel()) if s.reduction == MEAN else grad


BCE = defop("binary_cross_entropy",
            "binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, int reduction=1)",
            _bce_forward, node="BinaryCrossEntropyBackward0", inputs=("self", "target"), function=False,
            method=False, exposes=("reduction", "weight"), vmap="reduced_loss",
            derivs={"self": d("self", "target", "weight", rule=BCE_RULE)(_bce_input_grad),
                    "target": d("self", "weight", rule="-grad * weight * logit(self)" + MEAN_NOTE)(_bce_target_grad)})


def binary_cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,  # noqa: A002
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    enum = get_enum(reduction_of(size_average, reduce, reduction))
    if size_of(target) != size_of(input):
        raise TorchValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size.")
    if weight is not None:
        if not isinstance(weight, Tensor):  # (PyTorch's Python code reads weight.size())
            raise TorchAttributeError(f"'{type(weight).__name__}' object has no attribute 'size'")
        weight = weight.expand(_broadcast_shapes_py(tuple(target.shape), tuple(size_of(weight))))
    no_grad_argument(weight, "weight", "binary_cross_entropy")
    return run(BCE, {"self": input, "target": target, "weight": weight, "reduction": enum})


def _broadcast_shapes_py(*shapes: tuple) -> tuple:
    """``torch.broadcast_shapes`` (Python, with its own wording of the mismatch)."""
    common = [1] * max(len(s) for s in shapes)
    for index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                common[i] = shape[i]
            elif shape[i] != 1:
                raise TorchRuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching argument at "
                    f"index {index} had torch.Size([{', '.join(map(str, shape))}]); but expected shape should be "
                    f"broadcastable to [{', '.join(map(str, common))}]")
    return tuple(common)


def _bce_logits_forward(b: dict) -> Any:
    x, t, w, pw = b["self"], b["target"], b["weight"], b["pos_weight"]
    if not x._dtype.is_floating_point:
        raise TorchNotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{x._dtype.legacy_name}'")
    a = x._data
    log_sig = activation_kernels.log_sigmoid(a)  # at::log_sigmoid, the same kernel as F.logsigmoid
    if pw is not None:
        pw_a, t_a, _ = binary_arrays(pw, t)
        log_weight = (pw_a - pw_a.dtype.type(1)) * t_a + t_a.dtype.type(1)
        log_sig = _times_in_place(log_sig, Tensor._make(log_weight))
    # (1 - target).mul_(input).sub_(log_sigmoid): in place, so the loss keeps the target's dtype
    if not t._dtype.is_floating_point:
        raise TorchRuntimeError(f"result type {x._dtype.legacy_name} can't be cast to the desired output type "
                                f"{t._dtype.legacy_name}")
    common = promote(x, t).np
    loss = ((1 - t._data).astype(common) * a.astype(common)).astype(t._data.dtype)
    loss = (loss.astype(common) - log_sig.astype(common)).astype(t._data.dtype)
    if w is not None:
        loss = _times_in_place(loss, w)
    return reduce_array(loss, b["reduction"])


def _bce_logits_input_grad(g: Tensor, s: Any) -> Tensor:
    x, t = s.self, s.target
    if s.pos_weight is not None:
        pt = s.pos_weight * t
        grad = (add_scalar(pt, 1) - t) * x.sigmoid() - pt
    else:
        grad = x.sigmoid() - t
    grad = grad * g
    if s.weight is not None:
        grad = grad * s.weight
    return div_scalar(grad, s.self.numel()) if s.reduction == MEAN else grad


def _bce_logits_target_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    if s.pos_weight is not None:
        grad = log_sigmoid(-x) - log_sigmoid(x) * s.pos_weight
    else:
        grad = -x
    grad = grad * g
    if s.weight is not None:
        grad = grad * s.weight
    return div_scalar(grad, s.self.numel()) if s.reduction == MEAN else grad


BCE_LOGITS = defop(
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, "
    "Tensor? pos_weight=None, int reduction=1)",
    _bce_logits_forward, node="BinaryCrossEntropyWithLogitsBackward0", inputs=("self", "target"),
    function=False, method=False, exposes=("pos_weight", "reduction", "weight"), vmap="reduced_loss",
    # (weight and pos_weight are 1 when not given)
    derivs={"self": d("self", "target", "weight", "pos_weight",
                      rule="grad * weight * ((1 + (pos_weight - 1) * target) * sigmoid(self) - pos_weight * target)"
                      + MEAN_NOTE)(_bce_logits_input_grad),
            "target": d("self", "weight", "pos_weight",
                        rule="grad * weight * (log_sigmoid(-self) - pos_weight * log_sigmoid(self))" + MEAN_NOTE)(
                _bce_logits_target_grad)})


def _bce_logits_checks(b: dict) -> None:
    for name in ("weight", "pos_weight"):
        no_grad_argument(b.get(name), name, "binary_cross_entropy_with_logits")


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,  # noqa: A002
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Any = None) -> Tensor:
    enum = get_enum(reduction_of(size_average, reduce, reduction))
    if size_of(target) != size_of(input):
        raise TorchValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _torch_bce_logits(input, target, weight, pos_weight, enum)  # (PyTorch's F calls the C function)


def _bce_logits(input: Tensor, target: Tensor, weight: Any, pos_weight: Any, enum: int) -> Tensor:  # noqa: A002
    bound = {"self": input, "target": target, "weight": weight, "pos_weight": pos_weight, "reduction": enum}
    _bce_logits_checks(bound)
    if pos_weight is not None:
        # (pos_weight - 1).mul(target): a mismatch is reported with pos_weight as tensor a
        broadcast_shapes(tuple(pos_weight.shape), tuple(target.shape))
    # (1 - target) * input, then the weight: PyTorch's order of the broadcasts
    shape = broadcast_shapes(tuple(target.shape), tuple(input.shape))
    if weight is not None:
        broadcast_shapes(shape, tuple(weight.shape))
    return run(BCE_LOGITS, bound)


def _torch_bce_logits(input: Any, target: Any, weight: Any = None, pos_weight: Any = None,  # noqa: A002
                      reduction: int = MEAN) -> Tensor:
    """``torch.binary_cross_entropy_with_logits`` (the C++ function, reduction as an int)."""
    _, b = BCE_LOGITS.parser("function").parse((input, target, weight, pos_weight, reduction), {})
    return _bce_logits(b["input"], b["target"], b["weight"], b["pos_weight"], b["reduction"])


CATALOG.register(_torch_bce_logits, "binary_cross_entropy_with_logits", torch=True)


# -- kl_div ----------------------------------------------------------------------------------------

def _kl_div(input: Tensor, target: Tensor, reduction: int, log_target: bool) -> Tensor:  # noqa: A002
    """ATen's composite ``kl_div``."""
    for t in (input, target):
        if not t._dtype.is_floating_point:
            raise TorchRuntimeError("kl_div: Integral inputs not supported.")
    # The right operand first, as the C++ compiler evaluates it: node creation order decides the
    # order gradients are accumulated in (visible in a create_graph gradient's graph).
    if log_target:
        diff = target - input
        out = target.exp() * diff
    else:
        product = target * input
        out = XLOGY(target, target) - product
    if reduction == MEAN:
        return out.mean()
    return reductions.SUM(out) if reduction == SUM else out


def kl_div(input: Any, target: Any, size_average: Any = None, reduce: Any = None,  # noqa: A002
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    if size_average is not None or reduce is not None:
        enum = get_enum(reduction_of(size_average, reduce, reduction))
    else:
        if reduction == "mean":
            warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                 "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                 "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
        enum = get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _torch_kl_div(input, target, enum, log_target=log_target)
    if reduction == "batchmean" and attribute(input, "dim")() != 0:
        reduced = reduced / input.size()[0]
    return reduced


_KL_DIV = LazyParser("kl_div(Tensor input, Tensor target, int reduction=1, *, bool log_target=False)")


@signed(_KL_DIV)
def _torch_kl_div(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.kl_div(input, target, reduction=1, *, log_target=False)``."""
    _, b = _KL_DIV.parse(args, kwargs)
    return _kl_div(b["input"], b["target"], b["reduction"], b["log_target"])


CATALOG.register(_torch_kl_div, "kl_div", torch=True)
