"""Linear algebra: dot, mv, mm, bmm, matmul (and ``@``), outer, trace, linalg.det, linalg.inv.

``matmul`` follows PyTorch's own decomposition into dot/mv/mm/bmm, folds and
views, so its results carry the same ``grad_fn`` names (``MvBackward0``,
``SqueezeBackward4``, ``UnsafeViewBackward0``, ``CloneBackward0``, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd import grad_mode
from ..errors import TorchRuntimeError
from ..tensor import Tensor
from .registry import FUNCTIONS, NAMESPACES, OPS, d, defop, run


def _no_bool(t: Tensor, kernel: str, work: bool = True) -> None:
    # the BLAS-backed kernels are built for numbers only (mm/mv/bmm skip them when there is no work)
    if t._dtype.name == "bool" and work:
        from .pointwise import no_kernel
        raise no_kernel(kernel, t._dtype)


def _same_dtype(a: Tensor, b: Tensor, message: str) -> None:
    if a._dtype is not b._dtype:
        raise TorchRuntimeError(message.format(a=a, b=b, ca=a._dtype.c_name, cb=b._dtype.c_name))


def _dot_forward(b: dict) -> Any:
    x, y = b["self"], b["tensor"]
    if x.ndim != 1 or y.ndim != 1:
        raise TorchRuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
    _same_dtype(x, y, "dot : expected both vectors to have same dtype, but found {a._dtype.legacy_name} and "
                      "{b._dtype.legacy_name}")  # before the sizes, as PyTorch checks
    if x.shape[0] != y.shape[0]:
        raise TorchRuntimeError(
            f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have the same "
            f"number of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively")
    _no_bool(x, "dot")
    return np.asarray(np.dot(x._data, y._data), dtype=x._dtype.np)


DOT = defop("dot", "dot(Tensor input, Tensor tensor, *, Tensor? out=None)", _dot_forward, node="DotBackward0",
            inputs=("self", "tensor"),
            derivs={"self": d("tensor")(lambda g, s: g * s.tensor), "tensor": d("self")(lambda g, s: g * s.self)})
FUNCTIONS["inner"] = FUNCTIONS["dot"]


def _mv_forward(b: dict) -> Any:
    m, v = b["self"], b["vec"]
    if m.ndim != 2 or v.ndim != 1:
        raise TorchRuntimeError(
            f"vector + matrix @ vector expected, got 1, {m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0]:
        raise TorchRuntimeError(
            f"size mismatch, got input ({m.shape[0]}), mat ({m.shape[0]}x{m.shape[1]}), vec ({v.shape[0]})")
    if m._dtype is not v._dtype:  # mv is addmv into a result of vec's dtype
        names = (v._dtype.legacy_name, m._dtype.legacy_name, v._dtype.legacy_name)
        raise TorchRuntimeError("addmv input tensors must have the same dtype, but got {}, {}, and {}".format(*names))
    _no_bool(m, "addmv_impl_cpu", m._data.size > 0)
    if _adds_in_order(m.shape[0], m.shape[1], 1, m._dtype):
        return _product_in_order(m._data, v._data[:, None])[:, 0]
    return m._data @ v._data


MV = defop("mv", "mv(Tensor input, Tensor vec, *, Tensor? out=None)", _mv_forward, node="MvBackward0",
           inputs=("self", "vec"),
           derivs={"self": d("vec")(lambda g, s: g.unsqueeze(1) * s.vec),
                   "vec": d("self")(lambda g, s: s.self.t().mv(g))})


def _mm_forward(b: dict) -> Any:
    a, m = b["self"], b["mat2"]
    if a.ndim != 2:
        raise TorchRuntimeError("self must be a matrix")
    if m.ndim != 2:
        raise TorchRuntimeError("mat2 must be a matrix")
    if a.shape[1] != m.shape[0]:
        raise TorchRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and {m.shape[0]}x{m.shape[1]})")
    _same_dtype(a, m, "expected m1 and m2 to have the same dtype, but got: {ca} != {cb}")
    _no_bool(a, "addmm_impl_cpu_", a._data.size > 0 and m._data.size > 0)
    # Saved with the node (as PyTorch's _saved_*_sym_strides): the layouts choose the formulas.
    b["self_sym_strides"], b["mat2_sym_strides"] = a.stride(), m.stride()
    if a.shape[1] == 1 and a.shape[0] > 1 and m.shape[1] > 1:
        # MKL's gemm with one product per element keeps its sign: 0 * -1 is -0 (NumPy's gives +0),
        # as in the outer-product gradient of a vector @ matrix; a single row or column is gemv (+0)
        return a._data * m._data
    if _adds_in_order(a.shape[0], a.shape[1], m.shape[1], a._dtype):
        return _product_in_order(a._data, m._data)
    return a._data @ m._data


def _adds_in_order(rows: int, inner: int, cols: int, dtype: Any) -> bool:
    """Where PyTorch's BLAS (MKL, gemv-like shapes) is known to add the products one after
    another, each product rounded first: a single row (up to 256 terms), or a single column
    or mv with up to 4 terms.  Checked bit for bit against torch on random shapes; elsewhere
    NumPy's BLAS agrees with it more often than this order does."""
    if not dtype.is_floating_point or inner < 2:
        return False
    return (rows == 1 and inner <= 256) or (cols == 1 and inner <= 4)


def _product_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for 2-d arrays as a running sum over the inner dimension, without fused
    multiply-adds (the accumulator starts at +0, as gemv's does)."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    for i in range(a.shape[1]):
        acc += a[:, i:i + 1] * b[i:i + 1, :]
    return acc


def column_major(shape: Any, strides: tuple) -> bool:
    return strides[0] == 1 and strides[1] == shape[0]


def mm_mat1_backward(g: Tensor, mat2: Tensor, shape: Any, strides: tuple) -> Tensor:
    """PyTorch's mm_mat1_backward: a column-major mat1 gets its gradient computed transposed."""
    if column_major(shape, strides):
        return mat2.mm(g.t()).t()
    return g.mm(mat2.t())


def mm_mat2_backward(g: Tensor, mat1: Tensor, shape: Any, strides: tuple) -> Tensor:
    if column_major(shape, strides):
        return g.t().mm(mat1).t()
    return mat1.t().mm(g)


MM = defop("mm", "mm(Tensor input, Tensor mat2, *, Tensor? out=None)", _mm_forward, node="MmBackward0",
           exposes=("mat2_sym_sizes", "self_sym_sizes"),  # (PyTorch's strides are () when unneeded)
           inputs=("self", "mat2"),
           derivs={"self": d("mat2")(lambda g, s: mm_mat1_backward(g, s.mat2, s.self_sym_sizes, s.self_sym_strides)),
                   "mat2": d("self")(lambda g, s: mm_mat2_backward(g, s.self, s.mat2_sym_sizes, s.mat2_sym_strides))})


def _bmm_forward(b: dict) -> Any:
    a, m = b["self"], b["mat2"]
    if a.ndim != 3:
        raise TorchRuntimeError("batch1 must be a 3D tensor")
    if m.ndim != 3:
        raise TorchRuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != m.shape[0] or a.shape[2] != m.shape[1]:
        raise TorchRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, {a.shape[2]}] but "
            f"got: [{m.shape[0]}, {m.shape[1]}].")
    _no_bool(a, "bmm", a._data.size > 0 and m._data.size > 0)  # the kernel's dtype first
    if a._dtype is not m._dtype:
        raise TorchRuntimeError(f"expected scalar type {a._dtype.legacy_name} but found {m._dtype.legacy_name}")
    return np.matmul(a._data, m._data)


BMM = defop("bmm", "bmm(Tensor input, Tensor mat2, *, Tensor? out=None)", _bmm_forward, node="BmmBackward0",
            inputs=("self", "mat2"),
            derivs={"self": d("mat2")(lambda g, s: g.bmm(s.mat2.transpose(1, 2))),
                    "mat2": d("self")(lambda g, s: s.self.transpose(1, 2).bmm(g))})

# matmul's 1-d @ 2-d case squeezes with this overload of squeeze: squeeze_(dim), in place
# on mm's fresh result, so the result is no view (a later add_ is a plain AddBackward0).
SQUEEZE4 = defop("_squeeze_dim", "_squeeze_dim(Tensor input, int dim)",
                 lambda b: np.squeeze(b["self"]._data, b["dim"]), node="SqueezeBackward4",
                 function=False, method=False, derivs={"self": d()(lambda g, s: g.unsqueeze(s.dim))})


def matmul(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002 - PyTorch's name
    """``torch.matmul`` by PyTorch's decomposition (see the module docstring); ``out=`` as in
    the Tensors tutorial's ``torch.matmul(tensor, tensor.T, out=y3)``."""
    _, bound = _MATMUL.parse((input, other), {} if out is None else {"out": out})
    a, b = bound["input"], bound["other"]
    if out is None:
        return _matmul(a, b)
    from .registry import _write_out
    if grad_mode._enabled and (a.requires_grad or b.requires_grad or out.requires_grad):
        raise TorchRuntimeError("matmul(): functions with out=... arguments don't support automatic "
                                "differentiation, but one of the arguments requires grad.")
    with grad_mode.no_grad():
        result = _matmul(a, b)
    if out._dtype is not result._dtype:  # matmul_out checks this before writing (no casting)
        raise TorchRuntimeError(f"Expected out tensor to have dtype {result._dtype.c_name}, but got "
                                f"{out._dtype.c_name} instead")
    return _write_out(MM, {}, result._data, out)


def _matmul(a: Tensor, b: Tensor) -> Tensor:
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise TorchRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return run(DOT, {"self": a, "tensor": b})
    if da == 2 and db == 1:
        return run(MV, {"self": a, "vec": b})
    if da == 1 and db == 2:
        out = run(SQUEEZE4, {"self": run(MM, {"self": a.unsqueeze(0), "mat2": b}), "dim": 0})
        out._vc.value += 1  # PyTorch's squeeze_ is in place: the result is at version 1
        return out
    if da == 2 and db == 2:
        return run(MM, {"self": a, "mat2": b})
    if _should_fold(a, b):
        if da >= 3:
            return _folded(a, b)
        # (b^T @ a^T)^T, computed by folding b, as PyTorch does.
        if da == 1:
            return _folded(b.mT, a)
        return _folded(b.mT, a.t()).mT.contiguous()
    return _batched(a, b)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``should_fold``: fold the bigger operand into a matrix when that needs no copy,
    or always when the smaller one requires grad (to keep its gradient small)."""
    big, small = (a, b) if a.ndim >= b.ndim else (b.mT, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = big.shape, big.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _folded(a: Tensor, b: Tensor) -> Tensor:
    """``a`` (3-d or more) @ ``b`` (1-d or 2-d) as one mm/mv over the folded batch."""
    from .shape import UNSAFE_VIEW, reshape
    from ..shape_rules import numel
    batch = tuple(a.shape[:-1])
    folded = reshape(a, (numel(batch), a.shape[-1]))  # sizes, not -1: the batch may be empty
    if b.ndim == 1:
        out = run(MV, {"self": folded, "vec": b})
        shape = batch
    else:
        if folded.shape[1] != b.shape[0]:
            raise TorchRuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({folded.shape[0]}x{folded.shape[1]} and "
                f"{b.shape[0]}x{b.shape[1]})")
        out = run(MM, {"self": folded, "mat2": b})
        shape = batch + (b.shape[1],)
    return run(UNSAFE_VIEW, {"self": out, "size": shape})


def _batched(a: Tensor, b: Tensor) -> Tensor:
    """Broadcast batches, expanded and flattened for one bmm (PyTorch's last matmul case)."""
    from .shape import UNSAFE_VIEW
    from ..shape_rules import broadcast_shapes, numel
    da, db = a.ndim, b.ndim
    n, m1 = (a.shape[-2] if da > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2] if db > 1 else b.shape[0]), (b.shape[-1] if db > 1 else 1)
    batch1, batch2 = tuple(a.shape[:max(da - 2, 0)]), tuple(b.shape[:max(db - 2, 0)])
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        # a batch of one that requires grad is squeezed rather than expanded
        if batch1[0] == 1 and a.requires_grad:
            return _matmul(a.squeeze(0), b)
        if batch2[0] == 1 and b.requires_grad:
            return _matmul(a, b.squeeze(0))
    batch = broadcast_shapes(batch1, batch2)
    count = numel(batch)
    ea = a.expand(batch + (n, m1)).reshape(count, n, m1)
    if db == 1:
        eb = b.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        eb = b.expand(batch + (m2, p)).reshape(count, m2, p)
    out = run(BMM, {"self": ea, "mat2": eb})
    if db == 1:
        out = out.squeeze(-1)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return run(UNSAFE_VIEW, {"self": out, "size": shape})


def _matmul_dunder(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return _matmul(self, other)


def _rmatmul_dunder(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return _matmul(other, self)


def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    _, bound = _OUTER.parse((input, vec2), {})
    x, y = bound["input"], bound["vec2"]
    for name, t in (("self", x), ("vec2", y)):
        if t.ndim != 1:
            raise TorchRuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    # PyTorch computes the outer product as a broadcast multiplication.
    return x.reshape(x.shape[0], 1) * y


def _trace_forward(b: dict) -> Any:
    a = b["self"]._data
    _no_bool(b["self"], "trace")
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
    return FUNCTIONS["where"](diag, g, zero).view(rows, cols)


defop("trace", "trace(Tensor input)", _trace_forward, node="TraceBackward0",
      derivs={"self": d()(_trace_backward)})


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
    return lu_det(data)


def lu_det(a: np.ndarray) -> np.ndarray:
    """det by LU with partial pivoting, as LAPACK's getf2 computes it, then the product of U's diagonal.

    NumPy's det goes through exp(log|det|) and misses exact values such as -2;
    PyTorch multiplies the pivots, and so does this.
    """
    n = a.shape[-1]
    m = np.array(a.reshape((-1, n, n)), dtype=a.dtype, copy=True)
    sign = np.ones(m.shape[0], dtype=a.dtype)
    rows = np.arange(m.shape[0])
    for k in range(n):
        p = k + np.argmax(np.abs(m[:, k:, k]), axis=1)
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
    return det.reshape(a.shape[:-2]).astype(a.dtype)


def _det_backward(g: Tensor, s: Any) -> Tensor:
    a = s.self
    # d det(A) / dA = det(A) * inv(A)^T (adjugate^T when A is invertible).
    inv_t = FUNCTIONS["linalg.inv"](a).mT
    return (g * s.result).unsqueeze(-1).unsqueeze(-1) * inv_t


defop("linalg.det", "det(Tensor A, *, Tensor? out=None)",
      lambda b: _det_forward({"self": b["A"]}), node="LinalgDetBackward0", inputs=("A",), method=False,
      derivs={"A": d("A", "result")(lambda g, s: _det_backward(g, _AView(s)))})


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
    from ..errors import TorchLinAlgError
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


defop("linalg.inv", "inv(Tensor A, *, Tensor? out=None)", _inv_forward, node="LinalgInvExBackward0",
      inputs=("A",), method=False,
      derivs={"A": d("result")(lambda g, s: -(s.result.mT @ g @ s.result.mT))})


def _install() -> None:
    from .registry import METHOD_NAMES
    from ..dispatch.signature import ArgParser
    global _MATMUL, _OUTER
    _MATMUL = ArgParser(["matmul(Tensor input, Tensor other, *, Tensor? out=None)"])
    _OUTER = ArgParser(["outer(Tensor input, Tensor vec2)"])
    Tensor.__matmul__ = _matmul_dunder
    Tensor.__rmatmul__ = _rmatmul_dunder
    Tensor.matmul = lambda self, other: matmul(self, other)
    Tensor.outer = lambda self, vec2: outer(self, vec2)
    Tensor.ger = Tensor.outer
    METHOD_NAMES.update({"matmul", "outer", "ger"})
    Tensor.__script_attrs__ = Tensor.__script_attrs__ | {"matmul", "outer", "ger"}
    FUNCTIONS.update({"matmul": matmul, "outer": outer, "ger": outer})
    linalg = NAMESPACES.setdefault("linalg", {})
    linalg["det"] = FUNCTIONS.pop("linalg.det")
    linalg["inv"] = FUNCTIONS["linalg.inv"]
    linalg["matmul"] = matmul
    FUNCTIONS["det"] = linalg["det"]
    FUNCTIONS["inverse"] = linalg["inv"]
    Tensor.det = lambda self: linalg["det"](self)
    Tensor.inverse = lambda self: linalg["inv"](self)
    METHOD_NAMES.update({"det", "inverse"})
    Tensor.__script_attrs__ = Tensor.__script_attrs__ | {"det", "inverse"}


_MATMUL: Any = None
_OUTER: Any = None
_install()
__all__ = ["OPS"]
