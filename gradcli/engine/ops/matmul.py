"""Matrix products: dot (inner), mv, mm, bmm, addmm, matmul (and ``@``), outer (ger).

``matmul`` follows PyTorch's own decomposition into dot/mv/mm/bmm, folds and
views, so its results carry the same ``grad_fn`` names (``MvBackward0``,
``SqueezeBackward4``, ``UnsafeViewBackward0``, ``CloneBackward0``, ...).  The
products add their terms in MKL's order where that is known
(``kernels.matmul_order``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.op import LINEAR, MULTILINEAR
from ..autograd import grad_mode
from ..autograd.formulas import d
from .. import budget
from ..dispatch.limits import check_size
from ..dispatch.publish import Catalog
from ..dispatch.runner import run, write_out
from ..dispatch.signature import LazyParser
from ..errors import TorchRuntimeError, no_kernel
from ..kernels.matmul_order import batched_product, matrix_product, product_before_bias, vector_dot
from ..shape_rules import broadcast_shapes, numel
from ..tensor import Tensor
from .shape import UNSAFE_VIEW, expand_forward, reshape

CATALOG = Catalog()
defop = CATALOG.defop


def no_bool(t: Tensor, kernel: str, work: bool = True) -> None:
    # the BLAS-backed kernels are built for numbers only (mm/mv/bmm skip them when there is no work)
    if t._dtype.name == "bool" and work:
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
    no_bool(x, "dot")
    return np.asarray(vector_dot(x._data, y._data), dtype=x._dtype.np)


DOT = defop("dot", "dot(Tensor input, Tensor tensor, *, Tensor? out=None)", _dot_forward, jvp=MULTILINEAR, vmap="dot",
            node="DotBackward0",
            inputs=("self", "tensor"), aliases=("inner",),
            derivs={"self": d("tensor", rule="grad * tensor")(lambda g, s: g * s.tensor),
                    "tensor": d("self", rule="grad * self")(lambda g, s: g * s.self)})


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
    no_bool(m, "addmv_impl_cpu", m._data.size > 0)
    return matrix_product(m._data, v._data[:, None])[:, 0]


MV = defop("mv", "mv(Tensor input, Tensor vec, *, Tensor? out=None)", _mv_forward, jvp=MULTILINEAR, vmap="mv",
            node="MvBackward0",
           inputs=("self", "vec"),
           derivs={"self": d("vec", rule="outer(grad, vec)")(lambda g, s: g.unsqueeze(1) * s.vec),
                   "vec": d("self", rule="self^T @ grad")(lambda g, s: s.self.t().mv(g))})


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
    no_bool(a, "addmm_impl_cpu_", a._data.size > 0 and m._data.size > 0)
    # Saved with the node (as PyTorch's _saved_*_sym_strides): the layouts choose the formulas.
    b["self_sym_strides"], b["mat2_sym_strides"] = a.stride(), m.stride()
    count = a._data.shape[0] * m._data.shape[1]
    if count * a._dtype.itemsize > budget.watch_above:  # (one comparison unless it is large)
        budget.check_count(count, a._dtype.itemsize)
    return matrix_product(a._data, m._data)


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


def strides_if(key: str, needed: str) -> Any:
    """An exposed ``<input>_sym_strides``: what PyTorch saves only for an input whose gradient
    is computed (its formula keeps the other operand, ``needed``), () otherwise."""
    return lambda s: tuple(s[key]) if needed in s else ()


MM = defop("mm", "mm(Tensor input, Tensor mat2, *, Tensor? out=None)", _mm_forward, jvp=MULTILINEAR, vmap="mm",
            node="MmBackward0",
           exposes=("mat2_sym_sizes", "self_sym_sizes"),
           exposed_values={"self_sym_strides": strides_if("self_sym_strides", "mat2"),
                           "mat2_sym_strides": strides_if("mat2_sym_strides", "self")},
           inputs=("self", "mat2"),
           derivs={"self": d("mat2", rule="grad @ mat2^T")(
                       lambda g, s: mm_mat1_backward(g, s.mat2, s.self_sym_sizes, s.self_sym_strides)),
                   "mat2": d("self", rule="self^T @ grad")(
                       lambda g, s: mm_mat2_backward(g, s.self, s.mat2_sym_sizes, s.mat2_sym_strides))})


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
    no_bool(a, "bmm", a._data.size > 0 and m._data.size > 0)  # the kernel's dtype first
    if a._dtype is not m._dtype:
        raise TorchRuntimeError(f"expected scalar type {a._dtype.legacy_name} but found {m._dtype.legacy_name}")
    count = a._data.shape[0] * a._data.shape[1] * m._data.shape[2]
    if count * a._dtype.itemsize > budget.watch_above:
        budget.check_count(count, a._dtype.itemsize)
    return batched_product(a._data, m._data)


BMM = defop("bmm", "bmm(Tensor input, Tensor mat2, *, Tensor? out=None)", _bmm_forward, jvp=MULTILINEAR, vmap="bmm",
            node="BmmBackward0",
            inputs=("self", "mat2"),
            derivs={"self": d("mat2", rule="grad @ mat2^T, per batch")(lambda g, s: g.bmm(s.mat2.transpose(1, 2))),
                    "mat2": d("self", rule="self^T @ grad, per batch")(lambda g, s: s.self.transpose(1, 2).bmm(g))})

# matmul's 1-d @ 2-d case squeezes with this overload of squeeze: squeeze_(dim), in place
# on mm's fresh result, so the result is no view (a later add_ is a plain AddBackward0).
SQUEEZE4 = defop("_squeeze_dim", "_squeeze_dim(Tensor input, int dim)",
                 lambda b: np.squeeze(b["self"]._data, b["dim"]), jvp=LINEAR, vmap="dims", node="SqueezeBackward4",
                 function=False, method=False, exposes=("dim", "self_sym_sizes"),
                 derivs={"self": d(rule="grad unsqueezed at dim, back to self's shape")(
                     lambda g, s: g.unsqueeze(s.dim))})


def matmul(input: Any, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002 - PyTorch's name
    """``torch.matmul`` by PyTorch's decomposition (see the module docstring); ``out=`` as in
    the Tensors tutorial's ``torch.matmul(tensor, tensor.T, out=y3)``."""
    _, bound = _MATMUL.parse((input, other), {} if out is None else {"out": out})
    a, b = bound["input"], bound["other"]
    if out is None:
        return matmul_of(a, b)
    if grad_mode._enabled and (a.requires_grad or b.requires_grad or out.requires_grad):
        raise TorchRuntimeError("matmul(): functions with out=... arguments don't support automatic "
                                "differentiation, but one of the arguments requires grad.")
    with grad_mode.no_grad():
        result = matmul_of(a, b)
    if out._dtype is not result._dtype:  # matmul_out checks this before writing (no casting)
        raise TorchRuntimeError(f"Expected out tensor to have dtype {result._dtype.c_name}, but got "
                                f"{out._dtype.c_name} instead")
    return write_out(MM, {}, result._data, out)


def matmul_of(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` (``torch.matmul`` without its argument parsing and ``out=``)."""
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
    da, db = a.ndim, b.ndim
    n, m1 = (a.shape[-2] if da > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2] if db > 1 else b.shape[0]), (b.shape[-1] if db > 1 else 1)
    batch1, batch2 = tuple(a.shape[:max(da - 2, 0)]), tuple(b.shape[:max(db - 2, 0)])
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        # a batch of one that requires grad is squeezed rather than expanded
        if batch1[0] == 1 and a.requires_grad:
            return matmul_of(a.squeeze(0), b)
        if batch2[0] == 1 and b.requires_grad:
            return matmul_of(a, b.squeeze(0))
    batch = broadcast_shapes(batch1, batch2)
    count = numel(batch)
    # the batches are expanded into copies before the product (as PyTorch expands them)
    check_size((count, n, max(m1, p)), max(a._dtype.itemsize, b._dtype.itemsize))
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


def _matmul_operator(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):  # (t @ n is NumPy's, see numpy_bridge)
        return NotImplemented
    return matmul_of(self, other)


def _rmatmul_operator(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul_of(other, self)


def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    _, bound = _OUTER.parse((input, vec2), {})
    x, y = bound["input"], bound["vec2"]
    for name, t in (("self", x), ("vec2", y)):
        if t.ndim != 1:
            raise TorchRuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    # PyTorch computes the outer product as a broadcast multiplication.
    return x.reshape(x.shape[0], 1) * y




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
    count = m1._data.shape[0] * m2._data.shape[1]
    if count * m2._dtype.itemsize > budget.watch_above:
        budget.check_count(count, m2._dtype.itemsize)
    base = expand_forward({"self": s, "size": (m1.shape[0], m2.shape[1])})
    # Saved with the node (as PyTorch's _saved_*_sym_strides): the layouts choose the formulas.
    b["mat1_sym_strides"], b["mat2_sym_strides"] = m1.stride(), m2.stride()
    t = m2._data.dtype.type
    product = product_before_bias(m1._data, m2._data)
    beta, alpha = b["beta"], b["alpha"]
    if alpha != 1:
        product = product * t(alpha)
    if beta == 0:  # self is ignored entirely, NaN included
        return product
    return (base if beta == 1 else base * t(beta)) + product


def _times(g: Tensor, value: Any) -> Tensor:
    return g if value == 1 else g * value


def _addmm_jvp(b: dict, t: dict, outputs: list) -> Tensor:
    """beta * self_t + alpha * (mat1_t @ mat2 + mat1 @ mat2_t), the terms with a tangent."""
    terms = []
    if "self" in t:
        terms.append(_times(t["self"], b["beta"]))
    if "mat1" in t:
        terms.append(_times(t["mat1"].mm(b["mat2"]), b["alpha"]))
    if "mat2" in t:
        terms.append(_times(b["mat1"].mm(t["mat2"]), b["alpha"]))
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


ADDMM = defop("addmm", "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
              "Tensor? out=None)", _addmm_forward, jvp=_addmm_jvp, vmap="addmm", node="AddmmBackward0",
              inputs=("self", "mat1", "mat2"),
              exposes=("alpha", "beta", "mat1_sym_sizes", "mat2_sym_sizes"),
              exposed_values={"mat1_sym_strides": strides_if("mat1_sym_strides", "mat2"),
                              "mat2_sym_strides": strides_if("mat2_sym_strides", "mat1")},
              inplace=True, inplace_broadcasts=False,
              derivs={"self": d(rule="grad * beta")(lambda g, s: _times(g, s.beta)),
                      "mat1": d("mat2", rule="grad @ mat2^T * alpha")(lambda g, s: _times(
                          mm_mat1_backward(g, s.mat2, s.mat1_sym_sizes, s.mat1_sym_strides), s.alpha)),
                      "mat2": d("mat1", rule="mat1^T @ grad * alpha")(lambda g, s: _times(
                          mm_mat2_backward(g, s.mat1, s.mat2_sym_sizes, s.mat2_sym_strides), s.alpha))})


_MATMUL = LazyParser("matmul(Tensor input, Tensor other, *, Tensor? out=None)")
_OUTER = LazyParser("outer(Tensor input, Tensor vec2)")


def _matmul_method(self: Tensor, other: Any) -> Tensor:
    return matmul(self, other)


def _outer_method(self: Tensor, vec2: Any) -> Tensor:
    return outer(self, vec2)


CATALOG.register(_matmul_operator, operators=("__matmul__",))
CATALOG.register(_rmatmul_operator, operators=("__rmatmul__",))
CATALOG.register(_matmul_method, "matmul", method=True, sigs="matmul(Tensor input, Tensor other)")
CATALOG.register(_outer_method, "outer", method=True, sigs="outer(Tensor input, Tensor vec2)")
CATALOG.register(_outer_method, "ger", method=True, sigs="ger(Tensor input, Tensor vec2)")
CATALOG.register(matmul, "matmul", torch=True, namespaces=("linalg",))
CATALOG.register(outer, "outer", torch=True)
CATALOG.register(outer, "ger", torch=True, sigs="ger(Tensor input, Tensor vec2)")
