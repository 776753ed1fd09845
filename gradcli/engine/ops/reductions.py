"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, std/var, norm,
logsumexp, cumsum/cumprod, softmax/log_softmax, any/all.

``dim`` takes one dim or a tuple (``axis``/``keepdims`` are accepted as
aliases, as in PyTorch); a gradient is spread back over the reduced dims.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from ..errors import TorchIndexError, TorchNotImplementedError, TorchRuntimeError
from ..tensor import Tensor
from ..dispatch.promotion import arr, float_dtype
from .pointwise import zeros_like
from .registry import FUNCTIONS, NAMESPACES, OPS, d, defop, run
from ..dispatch.return_types import return_type
from ..shape_rules import wrap_dim, wrap_dims
from ..kernels import sleef
from ..kernels.summation import torch_sum, var_all


def reduce_axes(dim: Any, ndim: int) -> tuple[int, ...]:
    """The dims to reduce: all when ``dim`` is None or empty."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(ndim))
    if ndim == 0:
        for x in dims:
            wrap_dim(x, 0)
        return ()
    return wrap_dims(dims, ndim)


def expand_back(g: Tensor, shape: tuple, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Put a reduced gradient back into ``shape`` (unsqueeze the reduced dims, then expand)."""
    if not keepdim and len(shape) > 0:
        for dim in sorted(dims):
            g = g.unsqueeze(dim)
    return g.expand(shape)


def _sum_dtype(t: Tensor, dtype: Any) -> Any:
    if dtype is not None:
        return dtype
    return t._dtype if t._dtype.is_floating_point else dtypes.int64


# -- sum / mean / prod --------------------------------------------------------------------------

def _sum_forward(b: dict) -> Any:
    t = b["self"]
    axes = reduce_axes(b.get("dim"), t.ndim)
    dt = _sum_dtype(t, b.get("dtype"))
    return torch_sum(arr(t, dt), axes, b.get("keepdim", False))


def _sum_backward(g: Tensor, s: Any) -> Tensor:
    shape = s.self_sym_sizes
    dims = reduce_axes(getattr(s, "dim", None), len(shape))
    return expand_back(g, shape, dims, getattr(s, "keepdim", False))


_DIM_SIGS = "{0}(Tensor input, int[1]? dim, bool keepdim=False, *, dtype? dtype=None, Tensor? out=None)"

defop("sum", ["sum(Tensor input, *, dtype? dtype=None)", _DIM_SIGS.format("sum")], _sum_forward,
      node=lambda b: "SumBackward1" if "dim" in b else "SumBackward0",
      exposes=("dim", "keepdim", "self_sym_sizes"), derivs={"self": d()(_sum_backward)})


def _mean_forward(b: dict) -> Any:
    t = b["self"]
    dt = b.get("dtype") or t._dtype
    if not dt.is_floating_point:
        raise TorchRuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {dt.legacy_name}")
    axes = reduce_axes(b.get("dim"), t.ndim)
    a = arr(t, dt)
    n = math.prod(a.shape[i] for i in axes) if axes else (1 if a.ndim else 1)
    total = torch_sum(a, axes, b.get("keepdim", False))       # PyTorch's CPU mean: sum, then divide
    return np.asarray(total / dt.np.type(n) if n else total * dt.np.type(np.nan))


def _mean_backward(g: Tensor, s: Any) -> Tensor:
    shape = s.self_sym_sizes
    dims = reduce_axes(getattr(s, "dim", None), len(shape))
    n = math.prod(shape[i] for i in dims) if dims else 1
    return expand_back(g, shape, dims, getattr(s, "keepdim", False)) / n


defop("mean", ["mean(Tensor input, *, dtype? dtype=None)", _DIM_SIGS.format("mean")], _mean_forward,
      node=lambda b: "MeanBackward1" if "dim" in b else "MeanBackward0",
      exposes=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"), derivs={"self": d()(_mean_backward)})


def _prod_forward(b: dict) -> Any:
    t = b["self"]
    dt = _sum_dtype(t, b.get("dtype"))
    dim = b.get("dim")
    axes = reduce_axes(dim, t.ndim)
    return np.prod(arr(t, dt), axis=axes, keepdims=b.get("keepdim", False), dtype=dt.np)


def _prod_backward(g: Tensor, s: Any) -> Tensor:
    # Exact with zeros: the product of all the *other* elements, computed without division.
    x = s.self
    shape = s.self_sym_sizes
    dim = getattr(s, "dim", None)
    keepdim = getattr(s, "keepdim", False)
    if x.numel() == 0:
        return zeros_like(x)  # nothing to multiply: PyTorch's prod_backward gives zeros
    if x.ndim == 0:
        return g
    from ..autograd import grad_mode
    zeros = int((x == 0).sum().item())
    if dim is None:
        # PyTorch's prod_backward: grad * result / input without zeros (inf and nan as that
        # gives them), zeros when two or more (outside create_graph), else the exact products
        if zeros == 0:
            return g * (s.result / x)
        if zeros > 1 and not grad_mode._enabled:
            return zeros_like(x)
        return g * _prod_of_others(x.reshape(-1), 0).reshape(shape)
    axis = wrap_dim(dim, len(shape))
    gx = expand_back(g, shape, (axis,), keepdim)
    if zeros == 0:
        result = s.result if keepdim else s.result.unsqueeze(axis)
        return gx * (result / x)
    return gx * _prod_of_others(x, axis)


def _prod_of_others(x: Tensor, dim: int) -> Tensor:
    """For each element, the product of the other elements along ``dim`` (exclusive cumprods)."""
    if x.ndim == 0:
        return x * 0 + 1
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    one = Tensor._make(np.ones(ones_shape, dtype=x._dtype.np), x._dtype)
    n = x.shape[dim]
    before = FUNCTIONS["cat"]([one, x.narrow(dim, 0, n - 1).cumprod(dim)], dim) if n > 1 else one
    flipped = x.flip((dim,))
    after = FUNCTIONS["cat"]([one, flipped.narrow(dim, 0, n - 1).cumprod(dim)], dim).flip((dim,)) \
        if n > 1 else one
    return before * after


defop("prod", ["prod(Tensor input, *, dtype? dtype=None)",
               "prod(Tensor input, int dim, bool keepdim=False, *, dtype? dtype=None, Tensor? out=None)"],
      _prod_forward, node=lambda b: "ProdBackward1" if "dim" in b else "ProdBackward0",
      derivs={"self": d("self", "result")(_prod_backward)})  # PyTorch's node also keeps the result


# -- max / min / amax / amin / argmax / argmin -------------------------------------------------------

MaxResult = return_type("max", ("values", "indices"))
MinResult = return_type("min", ("values", "indices"))


def _extreme(name: str, np_fn: Any, arg_fn: Any, pair_fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        a = t._data
        if "other" in b:
            from ..dispatch.promotion import binary_arrays
            x, y, _ = binary_arrays(t, b["other"])
            return pair_fn(x, y)
        if "dim" not in b:
            if a.size == 0:
                raise TorchRuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                    "reduction dim with the 'dim' argument.")
            return np_fn(a)
        dim = wrap_dim(b["dim"], a.ndim)
        if a.ndim and a.shape[dim] == 0:
            raise TorchIndexError(
                f"{name}(): Expected reduction dim {dim} to have non-zero size.")
        if a.ndim == 0:
            return a.copy(), np.zeros((), dtype=np.int64)
        idx = _nan_aware_arg(a, dim, arg_fn)
        values = np.take_along_axis(a, np.expand_dims(idx, dim), dim)
        keep = b["keepdim"]
        if keep:
            return values, np.expand_dims(idx, dim)
        return np.squeeze(values, dim), idx
    return forward


def _nan_aware_arg(a: np.ndarray, dim: int, arg_fn: Any) -> np.ndarray:
    # PyTorch propagates nan: a nan is the max (and min), its first occurrence wins.
    idx = arg_fn(a, axis=dim)
    if a.dtype.kind == "f":
        nans = np.isnan(a)
        if nans.any():
            has = nans.any(axis=dim)
            first = np.argmax(nans, axis=dim)
            idx = np.where(has, first, idx)
    return idx.astype(np.int64)


def _evenly_shared(g: Tensor, s: Any, result_name: str = "result") -> Tensor:
    # Ties share the gradient evenly (PyTorch's evenly_distribute_backward / amax backward).
    x = s.self
    result = getattr(s, result_name)
    shape = s.self_sym_sizes
    dims = reduce_axes(getattr(s, "dim", None), len(shape))
    keepdim = getattr(s, "keepdim", False)
    mask = x == expand_back(result, shape, dims, keepdim)
    count = mask.sum(dims, keepdim=True) if shape else mask.to(g.dtype)
    return expand_back(g, shape, dims, keepdim) * mask / count


def _evenly_distribute(g: Tensor, s: Any) -> Tensor:
    # PyTorch's evenly_distribute_backward (max()/min() of everything): a NaN result sends the
    # gradient to the NaNs, otherwise to the elements equal to it
    x, value = s.self, s.result
    mask = x.isnan() if value.isnan().item() else x == value
    return zeros_like(x).masked_fill(mask, g / mask.sum())


def _select_by_index(g: list, s: Any) -> Tensor:
    values_grad = g[0]
    shape = s.self_sym_sizes
    idx = s.result1
    if not shape:
        return values_grad
    dim = wrap_dim(s.dim, len(shape))
    if not s.keepdim:
        values_grad = values_grad.unsqueeze(dim)
        idx = idx.unsqueeze(dim)
    zeros = Tensor._make(np.zeros(shape, dtype=values_grad._dtype.np), values_grad._dtype)
    return zeros.scatter(dim, idx, values_grad)


def _max_min_saves(b: dict) -> set:
    # each overload's node: MaxBackward0 (dim) keeps the indices only, MaxBackward1 self and
    # the result, MaximumBackward0 both inputs
    if "other" in b:
        return {"self", "other"}
    return {"result1"} if "dim" in b else {"self", "result"}


def _max_min(name: str, result_type: Any, pair: str) -> None:
    np_fn = np.max if name == "max" else np.min
    arg_fn = np.argmax if name == "max" else np.argmin
    pair_fn = np.maximum if name == "max" else np.minimum
    greater = name == "max"
    from .pointwise import _tie_split

    def self_grad(g: Any, s: Any) -> Tensor:
        if hasattr(s, "other"):
            return _tie_split(True, greater)(g, s)
        if hasattr(s, "dim"):
            return _select_by_index(g, s)
        return _evenly_distribute(g, s)

    defop(name, [f"{name}(Tensor input)",
                 f"{name}(Tensor input, int dim, bool keepdim=False, *, Tensor? out=None)",
                 f"{name}(Tensor input, Tensor other, *, Tensor? out=None)"],
          _extreme(name, np_fn, arg_fn, pair_fn),
          node=lambda b: (f"{pair}Backward0" if "other" in b
                          else f"{name.capitalize()}Backward0" if "dim" in b
                          else f"{name.capitalize()}Backward1"),
          inputs=("self", "other"), returns=result_type, saves=_max_min_saves,
          exposes={f"{name.capitalize()}Backward0": ("dim", "indices", "keepdim", "self_sym_sizes")},
          derivs={"self": d("self", "result", "result1", "other")(self_grad),
                  "other": d("self", "other")(_tie_split(False, greater))})


_max_min("max", MaxResult, "Maximum")
_max_min("min", MinResult, "Minimum")


def _amax_forward(fn: Any, name: str) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        axes = reduce_axes(b["dim"], t.ndim)
        _check_nonempty(name, t, axes, b["dim"])
        return fn(t._data, axis=axes, keepdims=b["keepdim"])
    return forward


def _check_nonempty(name: str, t: Tensor, axes: tuple, dim: Any) -> None:
    """PyTorch's refusal to reduce nothing: all dims of an empty tensor, or a dim of size 0."""
    if t.numel() == 0 and (dim is None or dim == () or dim == []):
        raise TorchRuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument.")
    given = [dim] if isinstance(dim, int) else list(dim or [])
    for axis, d in zip(axes, given):
        if t.shape[axis] == 0:  # named as given (-1 stays -1)
            raise TorchIndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


defop("amax", "amax(Tensor input, int[1] dim=[], bool keepdim=False, *, Tensor? out=None)",
      _amax_forward(np.max, "amax"), node="AmaxBackward0", exposes=("dim", "keepdim"),
      derivs={"self": d("self", "result")(_evenly_shared)})
defop("amin", "amin(Tensor input, int[1] dim=[], bool keepdim=False, *, Tensor? out=None)",
      _amax_forward(np.min, "amin"), node="AminBackward0", exposes=("dim", "keepdim"),
      derivs={"self": d("self", "result")(_evenly_shared)})


def _arg_forward(arg_fn: Any, name: str) -> Any:
    def forward(b: dict) -> Any:
        a = b["self"]._data
        dim = b["dim"]
        if a.dtype == np.bool_:
            raise TorchRuntimeError(f"{name}(): does not support bool input")
        if dim is None and a.size == 0:
            raise TorchIndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        if dim is not None and a.ndim and a.shape[wrap_dim(dim, a.ndim)] == 0:
            raise TorchIndexError(f"{name}(): Expected reduction dim {wrap_dim(dim, a.ndim)} to have non-zero size.")
        if dim is None:
            idx = _nan_aware_arg(a.reshape(-1), 0, arg_fn)
            return np.asarray(idx).reshape((1,) * a.ndim if b["keepdim"] else ())
        dim = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            return np.zeros((), dtype=np.int64)
        idx = _nan_aware_arg(a, dim, arg_fn)
        return np.expand_dims(idx, dim) if b["keepdim"] else idx
    return forward


defop("argmax", "argmax(Tensor input, int? dim=None, bool keepdim=False, *, Tensor? out=None)",
      _arg_forward(np.argmax, "argmax"))
defop("argmin", "argmin(Tensor input, int? dim=None, bool keepdim=False, *, Tensor? out=None)",
      _arg_forward(np.argmin, "argmin"))


# -- std / var --------------------------------------------------------------------------------------

def _correction(b: dict) -> float:
    if b.get("correction") is not None:
        return b["correction"]
    unbiased = b.get("unbiased")
    return 1 if unbiased is None or unbiased else 0


def _var_forward(take_sqrt: bool) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        if not t._dtype.is_floating_point:
            raise TorchRuntimeError("std and var only support floating point and complex dtypes")
        axes = reduce_axes(b.get("dim"), t.ndim)
        a = t._data
        n = math.prod(a.shape[i] for i in axes) if axes else 1
        ddof = _correction(b)
        if (n if a.size else 0) - ddof <= 0:  # an empty input has no degrees of freedom at all
            from ..warnings import warn
            warn(f"{'std' if take_sqrt else 'var'}(): degrees of freedom is <= 0. Correction should be strictly "
                 "less than the reduction factor (input numel divided by output numel). (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")
        exact = a.dtype in (np.float32, np.float64)
        if exact and a.size and math.prod(a.shape[i] for i in range(a.ndim) if i not in axes) == 1:
            # one value: PyTorch's two-pass std_var_all_cpu in double
            v = var_all(a, ddof, take_sqrt)
            shape = tuple(1 if i in axes else a.shape[i] for i in range(a.ndim)) if b.get("keepdim") else \
                tuple(a.shape[i] for i in range(a.ndim) if i not in axes)
            return np.full(shape, v, dtype=a.dtype)
        # PyTorch's Welford accumulates float32 in double and rounds the result
        out_dtype = a.dtype
        if a.dtype == np.float32:
            a = a.astype(np.float64)
        # (np.mean of nothing would warn on stderr; 0/0 is a quiet nan here)
        mean = np.sum(a, axis=axes, keepdims=True, dtype=a.dtype) / a.dtype.type(n)
        sq = np.sum((a - mean) ** 2, axis=axes, keepdims=b.get("keepdim", False), dtype=a.dtype)
        # n - correction <= 0 divides by zero: nan for 0/0, as in PyTorch.
        v = np.asarray(sq / a.dtype.type(max(n - ddof, 0)))
        return (np.sqrt(v) if take_sqrt else v).astype(out_dtype)
    return forward


def _var_backward(g: Tensor, s: Any) -> Tensor:
    x = s.self
    shape = s.self_sym_sizes
    dims = reduce_axes(getattr(s, "dim", None), len(shape))
    keepdim = getattr(s, "keepdim", False)
    n = math.prod(shape[i] for i in dims) if dims else 1
    ddof = _correction(s.__dict__)
    if getattr(s, "dim", None) is None or not shape:
        # PyTorch's var_backward for a full reduction without degrees of freedom: nan where
        # self is the mean, inf elsewhere
        dof = math.prod(shape) - ddof
        if dof <= 0:
            return g * FUNCTIONS["where"](x == x.mean(), math.nan, math.inf)
    centered = x - x.mean(dims, keepdim=True) if dims else x - x
    # 2 / (N - correction) is C++ double arithmetic in PyTorch: inf, not an error, at N == correction
    scale = 2.0 / (n - ddof) if n != ddof else math.inf
    return expand_back(g, shape, dims, keepdim) * centered * scale


def _std_backward(g: Tensor, s: Any) -> Tensor:
    x = s.self
    shape = s.self_sym_sizes
    dims = reduce_axes(getattr(s, "dim", None), len(shape))
    keepdim = getattr(s, "keepdim", False)
    n = math.prod(shape[i] for i in dims) if dims else 1
    ddof = _correction(s.__dict__)
    centered = x - x.mean(dims, keepdim=True) if dims else x - x
    # Where std is 0 the gradient is 0 (PyTorch masks the 0/0).
    result = s.result
    grad = expand_back(g / result, shape, dims, keepdim) * centered / (n - ddof)
    return grad.masked_fill(expand_back(result, shape, dims, keepdim) == 0, 0.0)


_VAR_SIGS = ["{0}(Tensor input, bool unbiased=True)",
             "{0}(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor? out=None)",
             "{0}(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor? out=None)"]
defop("var", [s.format("var") for s in _VAR_SIGS], _var_forward(False), node="VarBackward0",
      derivs={"self": d("self")(_var_backward)})
defop("std", [s.format("std") for s in _VAR_SIGS], _var_forward(True), node="StdBackward0",
      derivs={"self": d("self", "result")(_std_backward)})


# -- norm -----------------------------------------------------------------------------------------

def _norm_forward(b: dict) -> Any:
    t = b["self"]
    p = b.get("p", 2)
    p = 2 if p is None else p
    if isinstance(p, str):
        if p != "fro":
            raise TorchRuntimeError(f"linalg.vector_norm: expected ord to be a number, but got {p}")
        p = 2
    dt = b.get("dtype") or t._dtype
    if not dt.is_floating_point:
        raise TorchRuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {dt.legacy_name}")
    a = arr(t, dt)
    axes = reduce_axes(b.get("dim"), t.ndim)
    keep = b.get("keepdim", False)
    if p in (math.inf, -math.inf) and a.size == 0:
        # max and min of nothing have no identity (the missing space is PyTorch's)
        name = "inf" if p > 0 else "-inf"
        empty = next((i for i in axes if a.shape[i] == 0), None)
        if b.get("dim") is None:
            raise TorchRuntimeError(f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
                                    "the operation does not have an identity")
        if empty is not None:
            raise TorchRuntimeError(f"linalg.vector_norm cannot compute the {name} norm on the dimension {empty}"
                                    "because this dimension is empty and the operation does not have an identity")
    absa = np.abs(a)
    if p == math.inf:
        r = np.max(absa, axis=axes, keepdims=keep, initial=dt.np.type(0))
    elif p == -math.inf:
        r = np.min(absa, axis=axes, keepdims=keep)
    elif p == 0:
        r = np.sum(absa != 0, axis=axes, keepdims=keep).astype(dt.np)
    elif p == 1:
        r = np.sum(absa, axis=axes, keepdims=keep, dtype=dt.np)
    elif p == 2:
        r = np.sqrt(np.sum(absa * absa, axis=axes, keepdims=keep, dtype=dt.np))
    else:
        r = np.sum(absa ** dt.np.type(p), axis=axes, keepdims=keep, dtype=dt.np) ** dt.np.type(1.0 / p)
    return np.asarray(r, dtype=dt.np)


def _norm_backward(g: Tensor, s: Any) -> Tensor:
    """PyTorch's norm_backward, op for op (so a create_graph gradient has its graph): the
    gradient and the norm are unsqueezed back (not expanded) and broadcast."""
    x = s.self
    p = getattr(s, "p", 2)
    p = 2 if p is None or p == "fro" else p
    dim = getattr(s, "dim", None)
    dims = () if dim is None or dim == () else reduce_axes(dim, x.ndim)
    norm = s.result
    if not getattr(s, "keepdim", False) and x.ndim:
        for axis in sorted(dims):
            g, norm = g.unsqueeze(axis), norm.unsqueeze(axis)
    if p == 0:
        return None  # PyTorch's norm_backward gives no gradient at all for ord 0
    if p == 1:
        return x.sgn() * g
    if p == 2:
        # At the zero vector the gradient is 0, not nan.
        return g * (x / norm).masked_fill(norm == 0, 0.0)
    if p in (math.inf, -math.inf):
        # ties (and NaNs) share the gradient
        mask = (x.abs() == norm).logical_or(x.abs().isnan())
        return x.sgn() * ((g / mask.sum(dims, keepdim=True)) * mask)
    if p < 1:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0.0)
        return scaled * g * norm.pow(1 - p)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * (g / norm.pow(p - 1)).masked_fill(norm == 0, 0.0)


NORM = defop("_norm", "_norm(Tensor input, any p, int[1]? dim=None, bool keepdim=False, *, dtype? dtype=None)",
             _norm_forward, node="LinalgVectorNormBackward0", function=False, method=False,
             derivs={"self": d("self", "result")(_norm_backward)})


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,  # noqa: A002
         dtype: Any = None) -> Tensor:
    """``torch.norm``/``Tensor.norm``: a Python function in PyTorch too (vector norms only here)."""
    if isinstance(p, str) and p != "fro":
        from ..errors import TorchNotImplementedError
        raise TorchNotImplementedError(f"gradcli does not support torch.norm with p='{p}' yet")
    if p == "fro" and isinstance(dim, (tuple, list)) and len(dim) > 2:
        # three or more dims make it a matrix norm in PyTorch, which wants exactly two
        raise TorchRuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    return run(NORM, {"self": input, "p": p, "dim": dim, "keepdim": keepdim, "dtype": dtype})


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    from ..dispatch.promotion import binary_arrays
    _same_dtype_check(input, other)
    a, b, _ = binary_arrays(input, other)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _same_dtype_check(input: Tensor, other: Tensor) -> None:  # noqa: A002
    if input._dtype is not other._dtype:  # isclose does not promote
        raise TorchRuntimeError(f"{input._dtype.legacy_name} did not match {other._dtype.legacy_name}")


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    from ..dispatch.promotion import binary_arrays
    _same_dtype_check(input, other)
    a, b, _ = binary_arrays(input, other)
    return Tensor._make(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


for _name, _fn in (("norm", norm), ("allclose", allclose), ("isclose", isclose), ("equal", equal)):
    FUNCTIONS[_name] = _fn
    setattr(Tensor, _name, _fn)
from .registry import METHOD_NAMES  # noqa: E402
METHOD_NAMES.update({"norm", "allclose", "isclose", "equal"})
Tensor.__script_attrs__ = Tensor.__script_attrs__ | {"norm", "allclose", "isclose", "equal"}


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                out: Any = None, dtype: Any = None) -> Tensor:
    """``torch.linalg.vector_norm`` (and ``linalg.norm`` of a vector)."""
    return run(NORM, {"self": x, "p": ord, "dim": dim, "keepdim": keepdim, "dtype": dtype})


NAMESPACES.setdefault("linalg", {})["vector_norm"] = vector_norm


# -- logsumexp / softmax / log_softmax ----------------------------------------------------------------

def _logsumexp_forward(b: dict) -> Any:
    t = b["self"]
    a = arr(t, float_dtype(t))
    axes = reduce_axes(b["dim"], t.ndim)
    keep = b["keepdim"]
    if a.size == 0:
        return np.log(np.sum(np.exp(a), axis=axes, keepdims=keep))
    m = np.max(a, axis=axes, keepdims=True)
    m = np.where(np.isinf(m), a.dtype.type(0), m)
    r = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return r if keep else np.squeeze(r, axis=axes)


def _logsumexp_backward(g: Tensor, s: Any) -> Tensor:
    shape = s.self_sym_sizes
    dims = reduce_axes(s.dim, len(shape))
    return expand_back(g, shape, dims, s.keepdim) * (s.self - expand_back(s.result, shape, dims, s.keepdim)).exp()


defop("logsumexp", "logsumexp(Tensor input, int[1] dim, bool keepdim=False, *, Tensor? out=None)",
      _logsumexp_forward, node="LogsumexpBackward0", exposes=("dim", "keepdim"),
      derivs={"self": d("self", "result")(_logsumexp_backward)})


def _softmax_forward(log: bool) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        dt = b.get("dtype") or t._dtype
        dim = wrap_dim(b["dim"], t.ndim)  # checked before the kernel is chosen
        if t.numel() == 0 and b.get("dtype") is None:
            return t._data.copy()  # nothing to compute: no kernel, so no dtype error either
        if not dt.is_floating_point:
            # PyTorch has no integer softmax kernel (a dtype= argument converts first)
            last = t.ndim == 0 or dim == t.ndim - 1
            kernel = ("log_softmax" if log else "softmax") + ("_lastdim" if last else "") + "_kernel_impl"
            raise TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dt.legacy_name}'")
        a = arr(t, dt)
        dim = wrap_dim(b["dim"], a.ndim)
        if a.ndim == 0:
            return a - a if log else np.exp(a - a)  # 0 and 1, but NaN stays NaN
        if a.dtype == np.float32 and dim == a.ndim - 1 and 0 < a.size <= sleef.EXACT_LIMIT:
            return sleef.softmax_lastdim(a, log)  # PyTorch's lastdim kernels, bit for bit
        m = np.max(a, axis=dim, keepdims=True) if a.size else a
        shifted = a - m
        e = np.exp(shifted)
        total = np.sum(e, axis=dim, keepdims=True)
        return shifted - np.log(total) if log else e / total
    return forward


def _softmax_backward(g: Tensor, s: Any) -> Tensor:
    # PyTorch's _softmax_backward_data, an op of its own (see grad_ops)
    from . import grad_ops
    return grad_ops.call(grad_ops.SOFTMAX, g, self=s.result, dim=s.dim)


def _log_softmax_backward(g: Tensor, s: Any) -> Tensor:
    from . import grad_ops
    return grad_ops.call(grad_ops.LOG_SOFTMAX, g, self=s.result, dim=s.dim)


SOFTMAX = defop("softmax", "softmax(Tensor input, int dim, dtype? dtype=None)", _softmax_forward(False),
                node="SoftmaxBackward0", exposes=("dim",), derivs={"self": d("result")(_softmax_backward)})
LOG_SOFTMAX = defop("log_softmax", "log_softmax(Tensor input, int dim, dtype? dtype=None)", _softmax_forward(True),
                    node="LogSoftmaxBackward0", exposes=("dim",), derivs={"self": d("result")(_log_softmax_backward)})


def _converting_forms(op: Any) -> None:
    """Function and method forms that cast to ``dtype=`` first, as ``at::softmax`` does
    (a cast that changes the dtype is a ``ToCopyBackward0`` node below the softmax)."""
    def convert_and_run(bound: dict) -> Tensor:
        bound["self"] = bound.pop("input")
        dt = bound.get("dtype")
        if dt is not None:
            if bound["self"]._dtype is not dt:
                bound["self"] = bound["self"].to(dt)
            bound["dtype"] = None
        return run(op, bound)

    def function(*args: Any, **kwargs: Any) -> Tensor:
        return convert_and_run(op.parser("function").parse(args, kwargs)[1])

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return convert_and_run(op.parser("method").parse((self,) + args, kwargs)[1])
    function.__name__ = method.__name__ = op.name
    FUNCTIONS[op.name] = function
    setattr(Tensor, op.name, method)


_converting_forms(SOFTMAX)
_converting_forms(LOG_SOFTMAX)


# -- cumsum / cumprod ------------------------------------------------------------------------------

def _cum_forward(fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        dt = b.get("dtype") or _sum_dtype(t, None)
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
    from ..autograd import grad_mode
    if not grad_mode._enabled:
        return _cumprod_backward_masked(g, x, s.result, dim)
    # (with create_graph, PyTorch's differentiable O(n^2) form: sums of omitted products)
    pieces = []
    for i in range(n):
        left = x.narrow(dim, 0, i).prod(dim, keepdim=True) if i > 0 else None
        rest = x.narrow(dim, i + 1, n - i - 1) if i + 1 < n else None
        # out_j for j >= i without the factor x_i: left * cumprod(rest) (with 1 for j == i).
        one = g.narrow(dim, i, 1) * 0 + 1
        tail = FUNCTIONS["cat"]([one, rest.cumprod(dim)], dim) if rest is not None else one
        partial = tail if left is None else tail * left
        pieces.append((g.narrow(dim, i, n - i) * partial).sum(dim, keepdim=True))
    return FUNCTIONS["cat"](pieces, dim)


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


defop("cumsum", "cumsum(Tensor input, int dim, *, dtype? dtype=None, Tensor? out=None)",
      _cum_forward(_cumsum), node="CumsumBackward0", inplace=True, exposes=("dim",),
      derivs={"self": d()(_cumsum_backward)})
defop("cumprod", "cumprod(Tensor input, int dim, *, dtype? dtype=None, Tensor? out=None)",
      _cum_forward(np.cumprod), node="CumprodBackward0", inplace=True,
      derivs={"self": d("self", "result")(_cumprod_backward)})  # ... as cumprod's does


def _cum_inplace(name: str) -> Any:
    """``cumsum_``/``cumprod_``: computed in self's dtype, which ``dtype=`` may not change."""
    from .registry import OPS, run_inplace
    op = OPS[name]

    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        _, bound = op.parser("inplace").parse((self,) + args, kwargs)
        bound["self"] = bound.pop("input", self)
        dt = bound.get("dtype")
        from ..autograd import grad_mode
        from .registry import check_inplace_allowed
        if grad_mode._enabled and self.requires_grad:
            check_inplace_allowed(self)  # first the leaf, then the dim, then the dtype
        wrap_dim(bound["dim"], self.ndim)
        if dt is not None and dt is not self._dtype:
            raise TorchRuntimeError(f"Bad in-place call: input tensor dtype {self._dtype.c_name} and output tensor "
                                    f"dtype {dt.c_name} should match")
        if self._dtype is dtypes.bool_ and self.ndim and self.numel():
            raise TorchNotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        bound["dtype"] = self._dtype  # computed in self's dtype
        return run_inplace(op, bound)
    inplace.__name__ = name + "_"
    return inplace


Tensor.cumsum_ = _cum_inplace("cumsum")
Tensor.cumprod_ = _cum_inplace("cumprod")


# -- any / all / count ----------------------------------------------------------------------------

def _bool_reduce(fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        axes = reduce_axes(b.get("dim"), t.ndim)
        return fn(t._data.astype(bool), axis=axes, keepdims=b.get("keepdim", False))
    return forward


for _name, _fn in (("any", np.any), ("all", np.all)):
    defop(_name, [f"{_name}(Tensor input, *, Tensor? out=None)",
                  f"{_name}(Tensor input, int[1]? dim, bool keepdim=False, *, Tensor? out=None)"],
          _bool_reduce(_fn))

defop("count_nonzero", "count_nonzero(Tensor input, int[1]? dim=None)",
      lambda b: np.asarray(np.count_nonzero(b["self"]._data, axis=reduce_axes(b["dim"], b["self"].ndim)),
                           dtype=np.int64))


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """Sum a broadcast tensor down to ``size`` (what the engine does to broadcast gradients)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    from ..shape_rules import is_expandable_to, sum_to_axes
    if not is_expandable_to(shape, self.shape):
        from ..shape_rules import list_str
        raise TorchRuntimeError(f"size {{{list_str(shape)[1:-1]}}} is not expandable to size "
                                f"{{{list_str(self.shape)[1:-1]}}}.")
    if tuple(self.shape) == shape:
        return self
    # PyTorch's at::sum_to, node for node: sum() to a 0-dim shape, else one keepdim sum over the
    # leading and the broadcast dims, then a view dropping the leading ones.
    if not shape:
        return self.sum()
    axes, lead = sum_to_axes(self.shape, shape)
    result = self.sum(tuple(axes), keepdim=True) if axes else self
    return result.view(shape) if lead else result


Tensor.sum_to_size = sum_to_size
Tensor.__script_attrs__ = Tensor.__script_attrs__ | {"sum_to_size"}


# Like PyTorch's, these results are freshly allocated contiguous tensors (NumPy would keep a
# transposed input's layout), which decides what a later view or reshape of them does.
for _name in ("sum", "mean", "prod", "amax", "amin", "var", "std", "_norm", "logsumexp", "softmax", "log_softmax",
              "cumsum", "cumprod"):
    OPS[_name].contiguous = True
