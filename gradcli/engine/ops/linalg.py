"""Linear algebra beyond products: ``trace``, ``torch.linalg.det`` (``det``) and
``torch.linalg.inv`` (``inverse``), with LAPACK's LU steps where the rounding shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.op import LINEAR
from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.forms import function_form
from ..dispatch.publish import Catalog
from ..errors import TorchLinAlgError, TorchRuntimeError
from ..tensor import Tensor
from .comparison import WHERE
from .matmul import no_bool

CATALOG = Catalog()
defop = CATALOG.defop


def _trace_forward(b: dict) -> Any:
    a = b["self"]._data
    no_bool(b["self"], "trace")
    if a.ndim != 2:
        raise TorchRuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    dt = a.dtype if a.dtype.kind == "f" else np.int64
    return np.asarray(np.trace(a, dtype=dt))


def _trace_backward(g: Tensor, s: Any) -> Tensor:
    rows, cols = s.self_sym_sizes
    # PyTorch index_fill_s the diagonal of zeros: off the diagonal stays +0 even for a negative,
    # infinite or NaN gradient (eye * g would make -0 or NaN there)
    diag = Tensor._make(np.eye(rows, cols, dtype=bool).reshape(-1), dtypes.bool_)
    zero = Tensor._make(np.zeros(rows * cols, dtype=g._dtype.np), g._dtype)
    return WHERE(diag, g, zero).view(rows, cols)


TRACE = defop("trace", "trace(Tensor input)", _trace_forward, jvp=LINEAR, vmap="trace", node="TraceBackward0",
               exposes=("self_sym_sizes",),
      derivs={"self": d(rule="grad on the diagonal, 0 off it")(_trace_backward)})


def _square_check(a: Tensor, name: str) -> None:
    if a.ndim < 2:
        raise TorchRuntimeError(
            f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise TorchRuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices")
    if not a._dtype.is_floating_point:
        raise TorchRuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got {a._dtype.legacy_name}")


def _det_forward(b: dict) -> Any:
    a = b["self"]
    _square_check(a, "det")
    # PyTorch factors A^T when A is contiguous (det(A^T) = det(A), and LAPACK wants column-major),
    # which changes the pivots and so the rounding: det([[1, 2], [3, 4]]) is exactly -2 in float32.
    data = a._data.swapaxes(-1, -2) if a._data.flags.c_contiguous else a._data
    det, lu, pivots = lu_det(data)
    # The node keeps the factorization as PyTorch's does (grad_fn._saved_LU, _saved_pivots): the
    # LU of the matrix factored, column-major as LAPACK leaves it, and LAPACK's 1-based pivots.
    shape = data.shape
    b["LU"] = (Tensor._make(np.swapaxes(np.swapaxes(lu.reshape(shape), -1, -2).copy(), -1, -2)),)
    b["pivots"] = (Tensor._make(pivots.reshape(shape[:-1])),)
    return det


def lu_det(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """det by LU with partial pivoting, as LAPACK's getf2 computes it, then the product of U's
    diagonal; also the LU factors (batch, n, n) and LAPACK's 1-based pivot rows (batch, n), int32.

    NumPy's det goes through exp(log|det|) and misses exact values such as -2;
    PyTorch multiplies the pivots, and so does this.
    """
    n = a.shape[-1]
    m = np.array(a.reshape((-1, n, n)), dtype=a.dtype, copy=True)
    sign = np.ones(m.shape[0], dtype=a.dtype)
    rows = np.arange(m.shape[0])
    pivots = np.empty((m.shape[0], n), dtype=np.int32)
    for k in range(n):
        p = k + np.argmax(np.abs(m[:, k:, k]), axis=1)
        pivots[:, k] = p + 1
        swap = p != k
        if swap.any():
            top = m[rows, k, :].copy()
            m[rows, k, :] = m[rows, p, :]
            m[rows, p, :] = top
            sign = np.where(swap, -sign, sign)
        piv = m[:, k, k]
        ok = piv != 0
        if n <= 4 and k == n - 2:
            # PyTorch's LAPACK (MKL) divides the last single subdiagonal entry of a small matrix
            # by the pivot instead of multiplying by its reciprocal (checked against lu_factor).
            m[:, k + 1:, k] = np.where(ok[:, None], m[:, k + 1:, k] / np.where(ok, piv, 1)[:, None],
                                       m[:, k + 1:, k])
        else:
            recip = np.where(ok, 1 / np.where(ok, piv, 1), 0).astype(a.dtype)
            m[:, k + 1:, k] *= recip[:, None]
        m[:, k + 1:, k + 1:] -= m[:, k + 1:, k, None] * m[:, k, None, k + 1:]
    diag = np.diagonal(m, axis1=1, axis2=2)
    prod = diag[:, 0].copy() if n else np.ones(m.shape[0], dtype=a.dtype)
    for k in range(1, n):
        prod = prod * diag[:, k]
    det = prod * sign
    return det.reshape(a.shape[:-2]).astype(a.dtype), m, pivots


def _det_backward(g: Tensor, s: Any) -> Tensor:
    a = s.self
    # d det(A) / dA = det(A) * inv(A)^T (adjugate^T when A is invertible).
    inv_t = INV(a).mT
    return (g * s.result).unsqueeze(-1).unsqueeze(-1) * inv_t


def _det_forward_of_A(b: dict) -> Any:
    inner = {"self": b["A"]}
    det = _det_forward(inner)
    b["LU"], b["pivots"] = inner["LU"], inner["pivots"]
    return det


DET = defop("linalg.det", "det(Tensor A, *, Tensor? out=None)",
            _det_forward_of_A, node="LinalgDetBackward0", inputs=("A",), function=False, vmap="unary",
            method=False, exposed_values={"LU": lambda s: s["LU"][0].unpack(),
                                          "pivots": lambda s: s["pivots"][0].unpack()},
            derivs={"A": d("A", "result", rule="grad * result * inv(A)^T")(lambda g, s: _det_backward(g, _AView(s)))})


class _AView:
    def __init__(self, s: Any) -> None:
        self.self = s.A
        self.result = getattr(s, "result", None)


def _inv_forward(b: dict) -> Any:
    a = b["A"]
    _square_check(a, "inv")
    data = a._data
    try:
        result = np.linalg.inv(data).astype(a._dtype.np)
        # LAPACK's layout, as PyTorch returns it: each matrix column-major (strides (9, 1, 3))
        return np.swapaxes(np.swapaxes(result, -1, -2).copy(order="C"), -1, -2)
    except np.linalg.LinAlgError:
        pass
    mats = data.reshape((-1,) + data.shape[-2:])
    for i, m in enumerate(mats):
        try:
            np.linalg.inv(m)
        except np.linalg.LinAlgError:
            where = f"(Batch element {i}): " if data.ndim > 2 else ""
            raise TorchLinAlgError(
                f"linalg.inv: {where}The diagonal element {_singular_pivot(m)} is zero, the inversion could not be "
                "completed because the input matrix is singular.") from None
    raise AssertionError("a singular batch without a singular matrix")


def _singular_pivot(a: np.ndarray) -> int:
    """The 1-based position of the first zero pivot of LU with partial pivoting (LAPACK's info),
    computed in the matrix's own dtype with getf2's steps (a float32 rounding can leave a pivot
    that float64 would zero)."""
    m = np.array(a, dtype=a.dtype, copy=True)
    n = m.shape[0]
    first = 0
    for k in range(n):
        p = k + int(np.argmax(np.abs(m[k:, k])))
        if m[p, k] == 0:
            first = first or k + 1  # LAPACK records it and goes on
            continue
        m[[k, p]] = m[[p, k]]
        m[k + 1:, k] *= a.dtype.type(1) / m[k, k]
        m[k + 1:, k + 1:] -= np.outer(m[k + 1:, k], m[k, k + 1:])
    return first or n


INV = defop("linalg.inv", "inv(Tensor A, *, Tensor? out=None)", _inv_forward, node="LinalgInvExBackward0",
            vmap="unary", inputs=("A",), function=False, method=False, exposes=("inverse",),
            derivs={"A": d("result", rule="-result^T @ grad @ result^T")(
                lambda g, s: -(s.result.mT @ g @ s.result.mT))})




def _det_method(self: Tensor) -> Tensor:
    return DET(self)


def _inverse_method(self: Tensor) -> Tensor:
    return INV(self)


DET_FUNCTION, INV_FUNCTION = function_form(DET), function_form(INV)
CATALOG.register(DET_FUNCTION, "det", torch=True, namespaces=("linalg",))
CATALOG.register(INV_FUNCTION, "inverse", torch=True)
CATALOG.register(INV_FUNCTION, "inv", namespaces=("linalg",))
CATALOG.register(_det_method, "det", method=True)
CATALOG.register(_inverse_method, "inverse", method=True)
