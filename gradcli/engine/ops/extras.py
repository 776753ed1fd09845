"""Small ops that ``nn.functional`` composes with, each also public in PyTorch:
``clamp_min``, ``xlogy`` and ``addmm``; plus the Scalar overloads of add, mul and
div that PyTorch's C++ composites call (``AddBackward1``, ``MulBackward1``, ``DivBackward1``:
``(1 - label_smoothing) * nll`` in C++ multiplies by a Scalar, not a tensor).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TorchRuntimeError
from ..tensor import Tensor
from ..dispatch.promotion import arr, binary_arrays, promote
from .linalg import mm_mat1_backward, mm_mat2_backward
from .registry import FUNCTIONS, d, defop, run


# -- clamp_min ------------------------------------------------------------------------------------

def _clamp_min_forward(b: dict) -> Any:
    x, lo, _ = binary_arrays(b["self"], b["min"])
    return np.maximum(x, lo)  # propagates NaN from either side, as PyTorch's clamp does


CLAMP_MIN = defop("clamp_min", "clamp_min(Tensor input, Tensor min, *, Tensor? out=None)", _clamp_min_forward,
                  node=lambda b: "ClampMinBackward0" if b["min"]._wrapped else "ClampMinBackward1",
                  inputs=("self", "min"), scalar_inputs=("min",), numbers_as_tensors=True, inplace=True,
                  derivs={"self": d("self", "min")(lambda g, s: FUNCTIONS["where"](s.self >= s.min, g, 0.0)),
                          "min": d("self", "min")(lambda g, s: FUNCTIONS["where"](s.self < s.min, g, 0.0))})


# -- xlogy ------------------------------------------------------------------------------------------

def _xlogy_forward(b: dict) -> Any:
    x, y = b["self"], b["other"]
    rt = promote(x, y)
    if not rt.is_floating_point:
        from .. import dtypes
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
              derivs={"self": d("self", "other")(
                  lambda g, s: FUNCTIONS["xlogy"](g, s.other).masked_fill((s.self == 0) & (s.other <= 0), 0.0)),
                      "other": d("self", "other")(lambda g, s: g * s.self / s.other)})


# -- logit ------------------------------------------------------------------------------------------

def _logit_forward(b: dict) -> Any:
    x = b["self"]
    if not x._dtype.is_floating_point:
        from .. import dtypes
        a = arr(x, dtypes.get_default_dtype())
    else:
        a = x._data
    eps = b["eps"]
    if eps is not None:
        a = np.clip(a, a.dtype.type(eps), a.dtype.type(1 - eps))
    one = a.dtype.type(1)
    return np.log(a / (one - a))


def _logit_grad(g: Tensor, s: Any) -> Tensor:
    x = s.self
    if s.eps is None:
        # NaN outside [0, 1]
        return FUNCTIONS["where"]((x < 0) | (x > 1), float("nan"), g / (x * (1 - x)))
    return FUNCTIONS["where"]((x < s.eps) | (x > 1 - s.eps), 0.0, g / (x * (1 - x)))


LOGIT = defop("logit", "logit(Tensor input, float? eps=None, *, Tensor? out=None)", _logit_forward,
              node="LogitBackward0", inplace=True, derivs={"self": d("self")(_logit_grad)})


# -- addmm ----------------------------------------------------------------------------------------

def _addmm_forward(b: dict) -> Any:
    s, m1, m2 = b["self"], b["mat1"], b["mat2"]
    if m1.ndim != 2:
        raise TorchRuntimeError(f"mat1 must be a matrix, got {m1.ndim}-D tensor")
    if m2.ndim != 2:
        raise TorchRuntimeError(f"mat2 must be a matrix, got {m2.ndim}-D tensor")
    for name, t in (("self", s), ("mat1", m1)):
        if t._dtype is not m2._dtype:
            raise TorchRuntimeError(f"{name} and mat2 must have the same dtype, but got "
                                    f"{t._dtype.legacy_name} and {m2._dtype.legacy_name}")
    if m1.shape[1] != m2.shape[0]:
        raise TorchRuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1.shape[0]}x{m1.shape[1]} and "
                                f"{m2.shape[0]}x{m2.shape[1]})")
    from .shape import _expand_forward
    base = _expand_forward({"self": s, "size": (m1.shape[0], m2.shape[1])})
    # Saved with the node (as PyTorch's _saved_*_sym_strides): the layouts choose the formulas.
    b["mat1_sym_strides"], b["mat2_sym_strides"] = m1.stride(), m2.stride()
    t = m2._data.dtype.type
    product = m1._data @ m2._data
    beta, alpha = b["beta"], b["alpha"]
    if alpha != 1:
        product = product * t(alpha)
    if beta == 0:  # self is ignored entirely, NaN included
        return product
    return (base if beta == 1 else base * t(beta)) + product


def _times(g: Tensor, value: Any) -> Tensor:
    return g if value == 1 else g * value


ADDMM = defop("addmm", "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
              "Tensor? out=None)", _addmm_forward, node="AddmmBackward0", inputs=("self", "mat1", "mat2"),
              exposes=("mat1_sym_sizes", "mat2_sym_sizes"),  # (PyTorch's strides are () when unneeded)
              inplace=True,
              derivs={"self": d()(lambda g, s: _times(g, s.beta)),
                      "mat1": d("mat2")(lambda g, s: _times(
                          mm_mat1_backward(g, s.mat2, s.mat1_sym_sizes, s.mat1_sym_strides), s.alpha)),
                      "mat2": d("mat1")(lambda g, s: _times(
                          mm_mat2_backward(g, s.mat1, s.mat2_sym_sizes, s.mat2_sym_strides), s.alpha))})


# -- Scalar overloads of mul / div (C++ composites) -----------------------------------------------

def _scalar_forward(fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        a = arr(t, t._dtype)
        return fn(a, a.dtype.type(b["other"]))
    return forward


MUL_SCALAR = defop("_mul_scalar", "_mul_scalar(Tensor input, Scalar other)", _scalar_forward(np.multiply),
                   node="MulBackward1", function=False, method=False,
                   derivs={"self": d()(lambda g, s: g * s.other)})
DIV_SCALAR = defop("_div_scalar", "_div_scalar(Tensor input, Scalar other)", _scalar_forward(np.divide),
                   node="DivBackward1", function=False, method=False,
                   derivs={"self": d()(lambda g, s: g / s.other)})


ADD_SCALAR = defop("_add_scalar", "_add_scalar(Tensor input, Scalar other)", _scalar_forward(np.add),
                   node="AddBackward1", function=False, method=False, derivs={"self": d()(lambda g, s: g)})


def _no_bool_subtract(a: np.ndarray, b: Any) -> np.ndarray:
    if a.dtype == np.bool_:  # pow's gradient at a bool exponent: exponent - 1 fails as in PyTorch
        raise TorchRuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")
    return np.subtract(a, b)


SUB_SCALAR = defop("_sub_scalar", "_sub_scalar(Tensor input, Scalar other)", _scalar_forward(_no_bool_subtract),
                   node="SubBackward1", function=False, method=False, derivs={"self": d()(lambda g, s: g)})


def add_scalar(t: Tensor, value: float) -> Tensor:
    return run(ADD_SCALAR, {"self": t, "other": value})


def sub_scalar(t: Tensor, value: float) -> Tensor:
    return run(SUB_SCALAR, {"self": t, "other": value})


def mul_scalar(t: Tensor, value: float) -> Tensor:
    return run(MUL_SCALAR, {"self": t, "other": value})


def div_scalar(t: Tensor, value: float) -> Tensor:
    return run(DIV_SCALAR, {"self": t, "other": value})
