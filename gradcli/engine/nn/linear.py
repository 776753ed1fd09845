"""``F.linear`` and ``F.bilinear`` by PyTorch's own decomposition (ATen ``linear``).

``linear`` is ``addmm`` for a 2-d input with a bias (``AddmmBackward0``);
with a bias that broadcasts along one dim and a contiguous input of any
other rank it flattens the input, runs ``addmm`` and views the result back
(``ViewBackward0``); otherwise it is ``matmul(input, weight.t())`` followed
by an in-place ``add_`` of the bias (``AddBackward0`` on top of matmul's own
nodes: ``MmBackward0``, ``SqueezeBackward4``, ``UnsafeViewBackward0``, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.op import MULTILINEAR
from ..autograd.formulas import d
from ..dispatch.publish import Catalog
from ..dispatch.runner import run
from ..dispatch.python_signature import signed
from ..dispatch.signature import LazyParser
from ..errors import TorchRuntimeError
from ..ops.matmul import ADDMM, matmul_of
from ..shape_rules import numel
from ..tensor import Tensor

CATALOG = Catalog()
defop = CATALOG.defop

_LINEAR = LazyParser("linear(Tensor input, Tensor weight, Tensor? bias=None)")


@signed(_LINEAR)
def linear(*args: Any, **kwargs: Any) -> Tensor:
    """``F.linear(input, weight, bias=None)``: ``input @ weight.T + bias``."""
    _, b = _LINEAR.parse(args, kwargs)
    x, w, bias = b["input"], b["weight"], b["bias"]
    if x.ndim == 0 or w.ndim == 0:
        raise TorchRuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and {w.ndim}D")
    if bias is not None:
        if x.ndim == 2:
            return _addmm(bias, x, w.t())
        if _fusable(bias) and x.is_contiguous():
            return _flattened(x, w, bias)
    out = matmul_of(x, w.t())
    if bias is not None:
        out.add_(bias)
    return out


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    return run(ADDMM, {"self": bias, "mat1": mat1, "mat2": mat2, "beta": 1, "alpha": 1})


def _fusable(bias: Tensor) -> bool:
    # PyTorch's is_bias_likely_fusable: one non-trivial dim, contiguous.
    squeezed = sum(1 for s in bias.shape if s != 1)
    return (bias.ndim == 1 or squeezed == 1) and bias.is_contiguous()


def _flattened(x: Tensor, w: Tensor, bias: Tensor) -> Tensor:
    """PyTorch's ``_flatten_nd_linear``: all but the last dim folded into one for addmm."""
    sizes = tuple(x.shape)
    flat = x.reshape(numel(sizes[:-1]), sizes[-1])
    out = _addmm(bias, flat, w.t())
    return out.view(sizes[:-1] + (out.shape[1],))


# -- bilinear -----------------------------------------------------------------------------------

def _trilinear_forward(b: dict) -> Any:
    x1, x2, x3 = b["self"]._data, b["i2"]._data, b["i3"]._data
    return np.einsum(b["spec"], x1, x2, x3).astype(x1.dtype)


def _trilinear_grad(k: int) -> Any:
    """The gradient for operand ``k``: the same contraction with the gradient in its place
    (PyTorch's _trilinear backward is _trilinear again, hence TrilinearBackward0)."""
    def formula(g: Tensor, s: Any) -> Tensor:
        operands, out = s.spec.split("->")
        labels = operands.split(",")
        wanted = labels[k]
        labels[k] = out
        args = [s.self, s.i2, s.i3]
        args[k] = g
        return trilinear(args[0], args[1], args[2], ",".join(labels) + "->" + wanted)
    return formula


TRILINEAR = defop(
    "_trilinear", "_trilinear(Tensor input, Tensor i2, Tensor i3, str spec)", _trilinear_forward,
    jvp=MULTILINEAR, node="TrilinearBackward0", inputs=("self", "i2", "i3"), function=False, method=False,
    derivs={"self": d("i2", "i3", rule="einsum(spec) of grad, i2, i3, grad in the output's place")(
                _trilinear_grad(0)),
            "i2": d("self", "i3", rule="einsum(spec) of self, grad, i3, grad in the output's place")(
                _trilinear_grad(1)),
            "i3": d("self", "i2", rule="einsum(spec) of self, i2, grad, grad in the output's place")(
                _trilinear_grad(2))})


def trilinear(a: Tensor, b: Tensor, c: Tensor, spec: str) -> Tensor:
    return run(TRILINEAR, {"self": a, "i2": b, "i3": c, "spec": spec})


_BILINEAR = LazyParser("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)")


@signed(_BILINEAR)
def bilinear(*args: Any, **kwargs: Any) -> Tensor:
    """``F.bilinear(input1, input2, weight, bias=None)``: ``x1^T A x2 + b`` over the last dims."""
    _, b = _BILINEAR.parse(args, kwargs)
    x1, x2, w, bias = b["input1"], b["input2"], b["weight"], b["bias"]
    if x1.ndim != x2.ndim:
        raise TorchRuntimeError(f"bilinear(): input dimensions do not match: got {x1.ndim} and {x2.ndim}")
    for i in range(x1.ndim - 1):
        if x1.shape[i] != x2.shape[i]:
            raise TorchRuntimeError(
                f"bilinear(): input batch dimensions do not match: got {x1.shape[i]} and {x2.shape[i]}")
    # Sizes are read as PyTorch reads them (a weight of too few dims fails on size(2)).
    in1 = w.size(1)  # (PyTorch reads weight.size(1) first)
    out_features, in2 = w.size(0), w.size(2)
    if x1.shape[-1] != in1:
        raise TorchRuntimeError(
            f"bilinear(): input1 size does not match weight size: got {x1.shape[-1]} but expected {in1}")
    if x2.shape[-1] != in2:
        raise TorchRuntimeError(
            f"bilinear(): input2 size does not match weight size: got {x2.shape[-1]} but expected {in2}")
    if bias is not None and bias.ndim and bias.shape[0] != out_features:
        raise TorchRuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected {out_features}")
    batch = tuple(x1.shape[:-1])
    flat1 = x1.reshape(-1, x1.shape[-1])
    flat2 = x2.reshape(-1, x2.shape[-1])
    out = trilinear(flat1, w, flat2, "ni,oij,nj->no").reshape(batch + (out_features,))
    return out + bias if bias is not None else out


CATALOG.register(bilinear, "bilinear", torch=True)
