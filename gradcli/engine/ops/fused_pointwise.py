"""Pointwise ops of three tensors and a Scalar: ``addcmul`` and ``addcdiv`` (and their in-place forms).

The optimizers' updates are made of them (``exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)``,
``param.addcdiv_(exp_avg, denom, value=-step_size)``), so their forwards round as PyTorch's CPU
kernels do, measured against torch 2.13 on vector blocks and scalar tails alike:

* ``addcmul`` is one fused multiply-add, ``fma(value * tensor1, tensor2, self)`` (the compiler
  contracts ``self + value * t1 * t2`` in both loops);
* ``addcdiv`` is ``self + (value * tensor1) / tensor2``, three roundings (a division is never
  contracted; ``self + value * (tensor1 / tensor2)`` would differ in about 1% of results).

``value`` is first converted to the computation's dtype (``value.to<scalar_t>()``): float32
for float32 tensors, a truncated integer for integer ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.promotion import arr, promote
from ..dispatch.op import POINTWISE
from ..dispatch.publish import Catalog
from ..errors import TorchRuntimeError, no_kernel
from ..shape_rules import broadcast_all
from ..tensor import Tensor
from .arithmetic import fma

CATALOG = Catalog(jvp=POINTWISE, vmap="pointwise")
defop = CATALOG.defop

_INTEGER_DIVISION = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _operands(b: dict, kernel: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    s, t1, t2 = b["self"], b["tensor1"], b["tensor2"]
    broadcast_all([s.shape, t1.shape, t2.shape])
    rt = promote(s, t1, t2)
    if rt is dtypes.bool_:
        raise no_kernel(kernel, rt)
    value = b.get("value", 1)
    # c10::Scalar::to<scalar_t>(): a float value truncates for integer tensors
    scalar = rt.np.type(value) if rt.is_floating_point else rt.np.type(int(value))
    return arr(s, rt), arr(t1, rt), arr(t2, rt), scalar


def _addcmul_forward(b: dict) -> Any:
    s, t1, t2, value = _operands(b, "addcmul_cpu_out")
    if s.dtype.kind == "f":
        return fma(value * t1, t2, s)
    return s + value * t1 * t2


def _addcdiv_meta(b: dict) -> None:
    if not b["tensor1"]._dtype.is_floating_point and not b["tensor2"]._dtype.is_floating_point:
        raise TorchRuntimeError(_INTEGER_DIVISION)


def _addcdiv_forward(b: dict) -> Any:
    _addcdiv_meta(b)
    s, t1, t2, value = _operands(b, "addcdiv_cpu_out")
    # (the quotient is the first operand of the sum, as in PyTorch's compiled kernel: with NaNs on
    # both sides the quotient's is the one kept)
    return (value * t1) / t2 + s


def _filled_like(t: Tensor, value: Any) -> Tensor:
    # at::empty_like(t).fill_(value): what C++'s `Scalar / Tensor` divides (one rounding per element)
    return Tensor._make(np.full_like(t._data, value), t._dtype)


def _addcdiv_tensor1_grad(g: Tensor, s: Any) -> Tensor:
    # derivatives.yaml: grad * (value / tensor2)
    return g * (_filled_like(s.tensor2, s.value) / s.tensor2)


def _addcdiv_tensor2_grad(g: Tensor, s: Any) -> Tensor:
    # derivatives.yaml: -grad * (value * tensor1 / (tensor2 * tensor2))
    return -g * (s.tensor1 * s.value / (s.tensor2 * s.tensor2))


_SIG = "{}(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor? out=None)"

ADDCMUL = defop("addcmul", _SIG.format("addcmul"), _addcmul_forward, node="AddcmulBackward0",
                inputs=("self", "tensor1", "tensor2"), inplace=True, exposes=("value",),
                derivs={"self": d(rule="grad")(lambda g, s: g),
                        "tensor1": d("tensor2", rule="grad * tensor2 * value")(lambda g, s: g * (s.tensor2 * s.value)),
                        "tensor2": d("tensor1", rule="grad * tensor1 * value")(lambda g, s: g * (s.tensor1 * s.value))})
ADDCDIV = defop("addcdiv", _SIG.format("addcdiv"), _addcdiv_forward, node="AddcdivBackward0",
                inputs=("self", "tensor1", "tensor2"), inplace=True, exposes=("value",), meta=_addcdiv_meta,
                derivs={"self": d(rule="grad")(lambda g, s: g),
                        "tensor1": d("tensor2", rule="grad * value / tensor2")(_addcdiv_tensor1_grad),
                        "tensor2": d("tensor1", "tensor2", rule="-grad * value * tensor1 / tensor2^2")(
                            _addcdiv_tensor2_grad)})
