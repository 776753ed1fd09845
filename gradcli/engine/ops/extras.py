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
from .arithmetic import add_scalar, sub_scalar, mul_scalar, div_scalar, ADD_SCALAR  # noqa: F401  TEMPORARY
from .pointwise_binary import CLAMP_MIN, XLOGY  # noqa: F401


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
    from .shape import expand_forward
    base = expand_forward({"self": s, "size": (m1.shape[0], m2.shape[1])})
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


