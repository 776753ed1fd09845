"""``cumsum`` and ``cumprod`` (and their in-place forms, which keep self's dtype).

``cumprod``'s gradient is exact with zeros, as PyTorch's: an O(n) pass up to
each slice's first zero, or with ``create_graph`` the differentiable O(n^2) form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.op import LINEAR
from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.promotion import arr
from ..dispatch.publish import Catalog
from ..autograd import grad_mode
from ..autograd.inplace import check_inplace_allowed
from ..errors import TorchNotImplementedError, TorchRuntimeError
from ..shape_rules import wrap_dim
from ..tensor import Tensor
from .joining import CAT
from .reductions import sum_dtype

CATALOG = Catalog(vmap="dims")
defop = CATALOG.defop


def _cum_forward(fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        dt = b.get("dtype") or sum_dtype(t, None)
        a = arr(t, dt)
        axis = wrap_dim(b["dim"], a.ndim)  # a 0-dim tensor accepts only 0 and -1
        if a.ndim == 0:
            return a.copy()
        return fn(a, axis=axis, dtype=dt.np)
    return forward


def _cumsum_backward(g: Tensor, s: Any) -> Tensor:
    if g.ndim == 0:
        return g
    dim = wrap_dim(s.dim, g.ndim)
    return g.flip((dim,)).cumsum(dim).flip((dim,))


def _cumprod_backward(g: Tensor, s: Any) -> Tensor:
    # Exact with zeros: d out_j / d x_i = prod_{k<=j, k!=i} x_k, summed over j >= i.
    x = s.self
    if x.ndim == 0 or x.numel() <= 1:
        return g
    dim = wrap_dim(s.dim, x.ndim)
    n = x.shape[dim]
    if n == 1:
        return g
    if not (x == 0).any().item():
        # PyTorch's fast path without zeros: reversed cumsum of result * grad, over the input
        return (s.result * g).flip((dim,)).cumsum(dim).flip((dim,)) / x
    if not grad_mode._enabled:
        return _cumprod_backward_masked(g, x, s.result, dim)
    # (with create_graph, PyTorch's differentiable O(n^2) form: sums of omitted products)
    pieces = []
    for i in range(n):
        left = x.narrow(dim, 0, i).prod(dim, keepdim=True) if i > 0 else None
        rest = x.narrow(dim, i + 1, n - i - 1) if i + 1 < n else None
        # out_j for j >= i without the factor x_i: left * cumprod(rest) (with 1 for j == i).
        one = g.narrow(dim, i, 1) * 0 + 1
        tail = CAT([one, rest.cumprod(dim)], dim) if rest is not None else one
        partial = tail if left is None else tail * left
        pieces.append((g.narrow(dim, i, n - i) * partial).sum(dim, keepdim=True))
    return CAT(pieces, dim)


def _cumprod_backward_masked(g: Tensor, x: Tensor, out: Tensor, dim: int) -> Tensor:
    """PyTorch's O(n) cumprod backward with zeros: only elements up to the first zero of a
    slice get a gradient (nothing past it, so a NaN there does not spread)."""
    gd, xd, od = g._data, x._data, out._data
    zero = np.cumsum(xd == 0, axis=dim)
    grad_in = np.zeros(xd.shape, dtype=gd.dtype)
    before = zero == 0  # before the first zero: reversed cumsum of out * grad, over the input
    w = np.where(before, od * gd, 0)
    with np.errstate(all="ignore"):
        rev = np.flip(_cumsum(np.flip(w, dim), dim, w.dtype), dim) / xd
    grad_in[before] = rev[before]
    # at the first zero: sum_j grad_j * prod(x[z1+1..j]) times out just before the zero
    span = zero == 1
    first = np.expand_dims(np.argmax(span, axis=dim), dim)
    at_first = np.zeros_like(span)
    np.put_along_axis(at_first, first, True, dim)
    at_first &= span
    after = span & ~at_first
    with np.errstate(all="ignore"):
        total = (np.cumprod(np.where(after, xd, 1), axis=dim, dtype=gd.dtype)
                 * np.where(span, gd, 0)).sum(axis=dim, keepdims=True)
        prev = np.take_along_axis(od, np.maximum(first - 1, 0), dim)
        value = total * np.where(first == 0, 1, prev)
    grad_in[at_first] = np.broadcast_to(value, xd.shape)[at_first]
    return Tensor._make(grad_in, g._dtype)


def _cumsum(a: np.ndarray, axis: int, dtype: Any) -> np.ndarray:
    # PyTorch's accumulator starts at +0, so -0. never comes out (NumPy copies the first element)
    return np.cumsum(a, axis=axis, dtype=dtype) + dtype.type(0)


def _inplace_checks(name: str) -> Any:
    """``cumsum_``/``cumprod_``: computed in self's dtype, which ``dtype=`` may not change."""
    def prepare(bound: dict) -> None:
        self = bound["self"]
        dt = bound.get("dtype")
        if grad_mode._enabled and self.requires_grad:
            check_inplace_allowed(self)  # first the leaf, then the dim, then the dtype
        wrap_dim(bound["dim"], self.ndim)
        if dt is not None and dt is not self._dtype:
            raise TorchRuntimeError(f"Bad in-place call: input tensor dtype {self._dtype.c_name} and output tensor "
                                    f"dtype {dt.c_name} should match")
        if self._dtype is dtypes.bool_ and self.ndim and self.numel():
            raise TorchNotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        bound["dtype"] = self._dtype  # computed in self's dtype
    return prepare


CUMSUM = defop("cumsum", "cumsum(Tensor input, int dim, *, dtype? dtype=None, Tensor? out=None)",
               _cum_forward(_cumsum), jvp=LINEAR, node="CumsumBackward0", inplace=True, exposes=("dim",), contiguous=True,
               inplace_broadcasts=False, prepare_inplace=_inplace_checks("cumsum"),
               derivs={"self": d(rule="grad summed from the end along dim: flip(cumsum(flip(grad)))")(
                   _cumsum_backward)})
CUMPROD = defop("cumprod", "cumprod(Tensor input, int dim, *, dtype? dtype=None, Tensor? out=None)",
                _cum_forward(np.cumprod), node="CumprodBackward0", inplace=True, contiguous=True, exposes=("dim",),
                inplace_broadcasts=False, prepare_inplace=_inplace_checks("cumprod"),
                # (PyTorch's node keeps both)
                derivs={"self": d("self", "result", rule="grad * result summed from the end along dim, / self")(
                    _cumprod_backward)})


