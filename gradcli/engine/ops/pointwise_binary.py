"""Pointwise ops of several tensors besides arithmetic: ``atan2``, ``hypot``, ``maximum``,
``minimum``, ``lerp``, ``clamp`` (``clip``, ``clamp_min``) and ``xlogy``.

Where PyTorch's kernels differ from NumPy's at ties and signed zeros
(``maximum(-0., 0.)``, ``clamp(-0., min=0.)``) the forwards copy PyTorch on
purpose, and the gradients are PyTorch's ``where`` formulas, never a product
with a mask.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.promotion import arr, binary_arrays, promote
from ..dispatch import jvp_rules
from ..dispatch.op import POINTWISE
from ..dispatch.publish import Catalog
from ..errors import TorchRuntimeError, no_kernel
from ..kernels import binary_float
from ..kernels.sleef import vector_mask
from ..shape_rules import broadcast_all
from ..tensor import Tensor
from .arithmetic import fma, sub_check
from .comparison import WHERE
from .constants import zero_scalar

CATALOG = Catalog(jvp=POINTWISE, vmap="pointwise")
defop = CATALOG.defop


def _atan2_forward(b: dict) -> Any:
    x, y = b["self"], b["other"]
    rt = promote(x, y)
    if not rt.is_floating_point:
        rt = dtypes.get_default_dtype()
    a1, a2, _ = binary_arrays(x, y, rt)
    if a1.dtype in (np.float32, np.float64):
        return binary_float.binary("atan2", a1, a2)  # SLEEF and glibc, as PyTorch's kernel
    return np.arctan2(a1, a2)


def _atan2_grad(which: str) -> Callable:
    def formula(g: Tensor, s: Any) -> Tensor:
        denom = s.self * s.self + s.other * s.other
        num = s.other if which == "self" else -s.self
        grad = g * num / denom
        return grad.masked_fill(denom == 0, 0.0)
    return formula


def _atan2_jvp(b: dict, t: dict, outputs: list) -> Tensor:
    """PyTorch's forward formula, (-self * other_t + other * self_t) / (self^2 + other^2): nan
    at the origin, where the backward formula gives 0."""
    x, y = b["self"], b["other"]
    num = None
    if "other" in t:
        num = -x * t["other"]
    if "self" in t:
        num = y * t["self"] if num is None else num + y * t["self"]
    return num / (x.pow(2) + y.pow(2))


ATAN2 = defop("atan2", "atan2(Tensor input, Tensor other, *, Tensor? out=None)", _atan2_forward, jvp=_atan2_jvp,
      node="Atan2Backward0", inputs=("self", "other"), inplace=True,
      derivs={"self": d("self", "other", rule="grad * other / (self^2 + other^2)")(_atan2_grad("self")),
              "other": d("self", "other", rule="-grad * self / (self^2 + other^2)")(_atan2_grad("other"))})


def _hypot_forward(b: dict) -> Any:
    a1, a2, rt = binary_arrays(b["self"], b["other"])
    if not rt.is_floating_point:
        raise no_kernel("hypot_cpu", rt)
    if a1.dtype in (np.float32, np.float64):
        return binary_float.binary("hypot", a1, a2)  # SLEEF and glibc, as PyTorch's kernel
    return np.hypot(a1, a2)


HYPOT = defop("hypot", "hypot(Tensor input, Tensor other, *, Tensor? out=None)", _hypot_forward,
      node="HypotBackward0", inputs=("self", "other"), inplace=True,
      derivs={"self": d("self", "result", rule="grad * self / result")(lambda g, s: g * s.self / s.result),
              "other": d("other", "result", rule="grad * other / result")(lambda g, s: g * s.other / s.result)})


def keep_first_on_ties(out: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
    """PyTorch's scalar kernels (std::max/min) keep the first operand on a tie of +0 and -0, NumPy's
    the second.  (PyTorch's vector kernels, from 16 float32 or 8 float64 elements, do as NumPy.)"""
    if out.dtype.kind != "f":
        return out
    tie = (a1 == a2) & ~np.isnan(a1)
    return np.where(tie, np.broadcast_to(a1, out.shape), out)


def _minmax(fn: Callable) -> Callable[[dict], Any]:
    def forward(b: dict) -> Any:
        a1, a2, _ = binary_arrays(b["self"], b["other"])
        return keep_first_on_ties(fn(a1, a2), a1, a2)
    return forward


def tie_split(first: bool, greater: bool) -> Callable:
    # PyTorch's formula: where(self == other, grad / 2, grad).masked_fill_(<the other won>, 0), so
    # ties share the gradient, a NaN passes it to both sides, and a loser gets +0 (not -0 or nan).
    def formula(g: Tensor, s: Any) -> Tensor:
        a, b = (s.self, s.other) if first else (s.other, s.self)
        lost = (a < b) if greater else (a > b)
        return WHERE(a == b, g / 2, g).masked_fill(lost, 0)
    return formula


def tie_rule(mine: str, theirs: str, lost: str) -> str:
    """The rule of ``tie_split`` in words: ``lost`` is how ``mine`` compares to ``theirs`` when it lost."""
    return f"where({mine} {lost} {theirs}, 0, grad), grad / 2 where {mine} == {theirs}"


MAXIMUM = defop("maximum", "maximum(Tensor input, Tensor other, *, Tensor? out=None)", _minmax(np.maximum),
      node="MaximumBackward0", inputs=("self", "other"),
      derivs={"self": d("self", "other", rule=tie_rule("self", "other", "<"))(tie_split(True, True)),
              "other": d("self", "other", rule=tie_rule("other", "self", "<"))(tie_split(False, True))})
MINIMUM = defop("minimum", "minimum(Tensor input, Tensor other, *, Tensor? out=None)", _minmax(np.minimum),
      node="MinimumBackward0", inputs=("self", "other"),
      derivs={"self": d("self", "other", rule=tie_rule("self", "other", ">"))(tie_split(True, False)),
              "other": d("self", "other", rule=tie_rule("other", "self", ">"))(tie_split(False, False))})


def _lerp_meta(b: dict) -> None:
    start = b["self"]
    # lerp does not promote: end, and a weight tensor with dims, must have self's dtype
    for name in ("end", "weight"):
        t = b[name]
        if t._dtype is not start._dtype and not t._wrapped and (name == "end" or t.ndim):
            raise TorchRuntimeError(f"expected dtype {start._dtype.c_name} for `{name}` but got dtype "
                                    f"{t._dtype.c_name}")


def _lerp_forward(b: dict) -> Any:
    start, end, weight = b["self"], b["end"], b["weight"]
    _lerp_meta(b)
    broadcast_all([start.shape, end.shape, weight.shape])
    if not start._dtype.is_floating_point:
        raise no_kernel("lerp_kernel_scalar" if weight._wrapped else "lerp_kernel_tensor", start._dtype)
    rt = promote(start, end, weight)  # a 0-dim double weight of 0-dim floats makes a double
    s_, e_ = arr(start, rt), arr(end, rt)
    w = arr(weight, rt)
    # PyTorch's formula, exact at both ends, with its kernels' one rounding (lerp_vec's fmadd; the
    # scalar loop's `self + weight * (end - self)` / `end - (end - self) * (1 - weight)` are contracted
    # to the same fused multiply-adds): fma(weight, diff, self) or fma(weight - 1, diff, end).
    diff = e_ - s_
    small = np.abs(w) < 0.5
    one = w.dtype.type(1)
    result = fma(np.where(small, w, w - one), diff, np.where(small, s_, e_))
    unit = w == one
    if np.any(unit) and result.ndim:
        # At weight 1 the two loops' products differ in the sign of a zero (the vector loop's
        # (w - 1) * diff, the scalar one's -(diff * (1 - w))): it shows when end is -0.  Lerp's
        # vector loop steps by one vector (16 floats, 8 doubles); the rest is the scalar loop's.
        scalar = fma(-diff, one - w, e_)
        tail = ~vector_mask(result, vectors=1) if result.shape == start.shape else np.ones(result.shape, bool)
        result = np.where(unit & tail, scalar, result)
    elif np.any(unit):
        result = fma(-diff, one - w, e_)  # (a 0-dim result is the scalar loop's)
    return result


def _lerp_self_grad(g: Tensor, s: Any) -> Tensor:
    w = s.weight
    if w._wrapped:  # a Scalar weight: PyTorch computes 1 - weight.toDouble()
        return g * (1.0 - float(w.item()))
    # PyTorch's `1 - weight` on a tensor is ones_like(weight).sub_(weight): bool minus bool
    sub_check(w, w)
    return g * (1 - w)


LERP = defop("lerp", ["lerp(Tensor input, Tensor end, Tensor weight, *, Tensor? out=None)",
                     "lerp(Tensor input, Tensor end, Scalar weight, *, Tensor? out=None)"], _lerp_forward,
      node=lambda b: "LerpBackward0" if b["weight"]._wrapped else "LerpBackward1",
      inputs=("self", "end", "weight"), scalar_inputs=("weight",), numbers_as_tensors=("weight",), inplace=True,
      meta=_lerp_meta,
      derivs={"self": d("weight", rule="grad * (1 - weight)")(_lerp_self_grad),
              "end": d("weight", rule="grad * weight")(lambda g, s: g * s.weight),
              "weight": d("self", "end", rule="grad * (end - self)")(lambda g, s: g * (s.end - s.self))})


# -- clamp ---------------------------------------------------------------------------------------

def _clamp_forward(b: dict) -> Any:
    x, lo, hi = b["self"], b.get("min"), b.get("max")
    if lo is None and hi is None:
        raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    parts = [t for t in (x, lo, hi) if isinstance(t, Tensor)]
    broadcast_all([t.shape for t in parts])
    rt = promote(*parts)
    scalars = all(t is None or t._wrapped for t in (lo, hi))
    if rt is dtypes.bool_ and (scalars or (lo is not None and hi is not None)):
        kernel = "clamp_cpu" if not scalars else "clamp_scalar_cpu" if lo is not None and hi is not None \
            else "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu"
        raise no_kernel(kernel, rt)
    a = arr(x, rt)
    if lo is not None:
        # std::max / std::min keep the input on a tie (clamp(-0., 0., 0.) is -0.), NumPy's do not
        low = arr(lo, rt)
        if lo._data.ndim or not lo._wrapped:
            a = keep_first_on_ties(np.maximum(a, low), a, low)
        else:
            a = np.where((a < low) | np.isnan(low), low, a)
    if hi is not None:
        h = arr(hi, rt)
        # std::min keeps the input on a tie (clamp(-0., max=0.) is -0.); np.minimum would not
        if hi._data.ndim or not hi._wrapped:
            a = keep_first_on_ties(np.minimum(a, h), a, h)
        else:
            a = np.where((a > h) | np.isnan(h), h, a)
    return np.asarray(a)


# PyTorch's clamp_backward / clamp_backward_min_max: `where`, never a product with a mask (so a
# blocked gradient is +0 even where it was nan or negative); with both tensor bounds and
# min > max the result is max, so the gradient goes to max.
# The masks are combined in place, as PyTorch does: so a bound that broadcasts beyond self's
# comparison fails in backward with PyTorch's in-place shape error.
def _clamp_self_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    mask = None
    if s.min is not None:
        mask = x >= s.min
    if s.max is not None:
        upper = x <= s.max
        mask = upper if mask is None else mask.logical_and_(upper)
    return WHERE(mask, g, zero_scalar(g))


def _clamp_min_grad(g: Tensor, s: Any) -> Tensor:
    mask = s.self < s.min
    if s.max is not None:
        mask = mask.logical_and_(s.min < s.max)
    return WHERE(mask, g, zero_scalar(g))


def _clamp_max_grad(g: Tensor, s: Any) -> Tensor:
    mask = s.self > s.max
    if s.min is not None:
        mask = mask.logical_or_(s.max < s.min)
    return WHERE(mask, g, zero_scalar(g))


def _clamp_jvp(b: dict, t: dict, outputs: list) -> Any:
    """PyTorch's clamp_jvp for tensor bounds, which at a tie takes the bound's tangent where the
    backward formula gives self the gradient; the Scalar overload is element-wise as usual."""
    lo, hi = b["min"], b["max"]
    if all(x is None or x._wrapped for x in (lo, hi)):
        return jvp_rules.pointwise(CLAMP, b, t, outputs)
    x = b["self"]

    def tangent(name: str, value: Tensor) -> Tensor:
        return t[name] if name in t else value * 0
    x_t = tangent("self", x)
    if lo is not None and hi is not None:
        lo_t, hi_t = tangent("min", lo), tangent("max", hi)
        return WHERE(lo > hi, hi_t, WHERE(x < lo, lo_t, WHERE(x > hi, hi_t, x_t)))
    if lo is not None:
        return WHERE(x > lo, x_t, tangent("min", lo))
    return WHERE(x < hi, x_t, tangent("max", hi))


_CLAMP_SIGS = ["clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor? out=None)"]
CLAMP = defop("clamp", _CLAMP_SIGS, _clamp_forward,
              node=lambda b: "ClampBackward1" if all(t is None or t._wrapped for t in (b["min"], b["max"]))
              else "ClampBackward0",
              inputs=("self", "min", "max"), numbers_as_tensors=True, inplace=True,
              scalar_inputs=("min", "max"), joint_scalars=True, jvp=_clamp_jvp,
              derivs={"self": d("self", "min", "max", rule="where(min <= self <= max, grad, 0)")(_clamp_self_grad),
                      "min": d("self", "min", "max", rule="where(self < min and min < max, grad, 0)")(
                          _clamp_min_grad),
                      "max": d("self", "min", "max", rule="where(self > max or max < min, grad, 0)")(
                          _clamp_max_grad)})
CLIP = defop("clip", [s.replace("clamp(", "clip(") for s in _CLAMP_SIGS], _clamp_forward,
      node=CLAMP.node, inputs=CLAMP.inputs, numbers_as_tensors=True, inplace=True, derivs=CLAMP.derivs,
      scalar_inputs=CLAMP.scalar_inputs, joint_scalars=True, jvp=_clamp_jvp)



# -- clamp_min ------------------------------------------------------------------------------------

def _clamp_min_forward(b: dict) -> Any:
    x, lo, _ = binary_arrays(b["self"], b["min"])
    return np.maximum(x, lo)  # propagates NaN from either side, as PyTorch's clamp does


CLAMP_MIN = defop("clamp_min", "clamp_min(Tensor input, Tensor min, *, Tensor? out=None)", _clamp_min_forward,
                  node=lambda b: "ClampMinBackward0" if b["min"]._wrapped else "ClampMinBackward1",
                  inputs=("self", "min"), scalar_inputs=("min",), numbers_as_tensors=True, inplace=True,
                  derivs={"self": d("self", "min", rule="where(self >= min, grad, 0)")(
                              lambda g, s: WHERE(s.self >= s.min, g, 0.0)),
                          "min": d("self", "min", rule="where(self < min, grad, 0)")(
                              lambda g, s: WHERE(s.self < s.min, g, 0.0))})


# -- xlogy ------------------------------------------------------------------------------------------

def _xlogy_forward(b: dict) -> Any:
    x, y = b["self"], b["other"]
    rt = promote(x, y)
    if not rt.is_floating_point:
        rt = dtypes.get_default_dtype()
    a, o, _ = binary_arrays(x, y, rt)
    # 0 * log(y) is 0 unless y is NaN
    return np.where((a == 0) & ~np.isnan(o), a.dtype.type(0), a * np.log(o))


def _xlogy_node(b: dict) -> str:
    if b["self"]._wrapped:
        return "XlogyBackward1"
    return "XlogyBackward2" if b["other"]._wrapped else "XlogyBackward0"


XLOGY = defop("xlogy", "xlogy(Tensor input, Tensor other, *, Tensor? out=None)", _xlogy_forward, node=_xlogy_node,
              inputs=("self", "other"), scalar_inputs=("self", "other"), numbers_as_tensors=True, inplace=True,
              derivs={"self": d("self", "other", rule="grad * log(other), 0 where self == 0 and other <= 0")(
                  lambda g, s: XLOGY(g, s.other).masked_fill((s.self == 0) & (s.other <= 0), 0.0)),
                      "other": d("self", "other", rule="grad * self / other")(lambda g, s: g * s.self / s.other)})
