"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std, any/all,
count_nonzero, and ``sum_to_size``.

``dim`` takes one dim or a tuple (``axis``/``keepdims`` are accepted as
aliases, as in PyTorch); a gradient is spread back over the reduced dims.
Sums add in PyTorch's order (``kernels.summation``), and the results are
fresh contiguous tensors, as PyTorch allocates them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dispatch.op import LINEAR
from .. import dtypes
from ..autograd.formulas import d
from ..dispatch.promotion import arr, binary_arrays
from ..dispatch.publish import Catalog
from ..autograd import grad_mode
from ..dispatch.return_types import return_type
from ..errors import TorchIndexError, TorchRuntimeError
from ..kernels.summation import torch_sum, var_all
from ..shape_rules import is_expandable_to, list_str, sum_to_axes, wrap_dim, wrap_dims
from ..tensor import Tensor
from ..warnings import warn
from .comparison import WHERE
from .constants import zeros_like
from .joining import CAT
from .pointwise_binary import tie_rule, tie_split

CATALOG = Catalog(vmap="reduction")
defop = CATALOG.defop


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


def sum_dtype(t: Tensor, dtype: Any) -> Any:
    if dtype is not None:
        return dtype
    return t._dtype if t._dtype.is_floating_point else dtypes.int64


# -- sum / mean / prod --------------------------------------------------------------------------

def _sum_forward(b: dict) -> Any:
    t = b["self"]
    axes = reduce_axes(b.get("dim"), t.ndim)
    dt = sum_dtype(t, b.get("dtype"))
    return torch_sum(arr(t, dt), axes, b.get("keepdim", False))


def _sum_backward(g: Tensor, s: Any) -> Tensor:
    shape = s.self_sym_sizes
    dims = reduce_axes(getattr(s, "dim", None), len(shape))
    return expand_back(g, shape, dims, getattr(s, "keepdim", False))


_DIM_SIGS = "{0}(Tensor input, int[1]? dim, bool keepdim=False, *, dtype? dtype=None, Tensor? out=None)"

SUM = defop("sum", ["sum(Tensor input, *, dtype? dtype=None)", _DIM_SIGS.format("sum")], _sum_forward,
      jvp=LINEAR, node=lambda b: "SumBackward1" if "dim" in b else "SumBackward0", contiguous=True,
      exposes=("dim", "keepdim", "self_sym_sizes"),
      derivs={"self": d(rule="grad expanded to self's shape")(_sum_backward)})


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


MEAN = defop("mean", ["mean(Tensor input, *, dtype? dtype=None)", _DIM_SIGS.format("mean")], _mean_forward,
      jvp=LINEAR, node=lambda b: "MeanBackward1" if "dim" in b else "MeanBackward0", contiguous=True,
      exposes=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
      derivs={"self": d(rule="grad / N expanded to self's shape, N the count averaged",
                        node_rules={"MeanBackward0": "grad / numel(self), expanded to self's shape"})(
          _mean_backward)})


def _prod_forward(b: dict) -> Any:
    t = b["self"]
    dt = sum_dtype(t, b.get("dtype"))
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
    before = CAT([one, x.narrow(dim, 0, n - 1).cumprod(dim)], dim) if n > 1 else one
    flipped = x.flip((dim,))
    after = CAT([one, flipped.narrow(dim, 0, n - 1).cumprod(dim)], dim).flip((dim,)) \
        if n > 1 else one
    return before * after


defop("prod", ["prod(Tensor input, *, dtype? dtype=None)",
               "prod(Tensor input, int dim, bool keepdim=False, *, dtype? dtype=None, Tensor? out=None)"],
      _prod_forward, node=lambda b: "ProdBackward1" if "dim" in b else "ProdBackward0", contiguous=True,
      exposes={"ProdBackward1": ("dim", "keepdim")},
      # PyTorch's node also keeps the result
      derivs={"self": d("self", "result", rule="grad * the product of the other elements (result / self)",
                        node_rules={"ProdBackward1": "grad * the product of the others along dim (result / self)"})(
          _prod_backward)})


# -- max / min / amax / amin / argmax / argmin -------------------------------------------------------

MaxResult = return_type("max", ("values", "indices"))
MinResult = return_type("min", ("values", "indices"))


def _extreme(name: str, np_fn: Any, arg_fn: Any, pair_fn: Any) -> Any:
    def forward(b: dict) -> Any:
        t = b["self"]
        a = t._data
        if "other" in b:
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

    def self_grad(g: Any, s: Any) -> Tensor:
        if hasattr(s, "other"):
            return tie_split(True, greater)(g, s)
        if hasattr(s, "dim"):
            return _select_by_index(g, s)
        return _evenly_distribute(g, s)

    lost = "<" if greater else ">"  # how self compares to other where it gets no gradient
    rules = {f"{name.capitalize()}Backward1": f"grad shared evenly by the elements equal to the {name}",
             f"{name.capitalize()}Backward0": f"zeros of self's shape, grad at the {name}'s index along dim",
             f"{pair}Backward0": tie_rule("self", "other", lost)}

    defop(name, [f"{name}(Tensor input)",
                 f"{name}(Tensor input, int dim, bool keepdim=False, *, Tensor? out=None)",
                 f"{name}(Tensor input, Tensor other, *, Tensor? out=None)"],
          _extreme(name, np_fn, arg_fn, pair_fn),
          node=lambda b: (f"{pair}Backward0" if "other" in b
                          else f"{name.capitalize()}Backward0" if "dim" in b
                          else f"{name.capitalize()}Backward1"),
          inputs=("self", "other"), returns=result_type, saves=_max_min_saves,
          exposes={f"{name.capitalize()}Backward0": ("dim", "indices", "keepdim", "self_sym_sizes")},
          derivs={"self": d("self", "result", "result1", "other", rule=f"grad to where self is the {name}",
                            node_rules=rules)(self_grad),
                  "other": d("self", "other", rule=tie_rule("other", "self", lost))(tie_split(False, greater))})


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
    for axis, written in zip(axes, given):
        if t.shape[axis] == 0:  # named as given (-1 stays -1)
            raise TorchIndexError(f"{name}(): Expected reduction dim {written} to have non-zero size.")


defop("amax", "amax(Tensor input, int[1] dim=[], bool keepdim=False, *, Tensor? out=None)",
      _amax_forward(np.max, "amax"), node="AmaxBackward0", exposes=("dim", "keepdim"), contiguous=True,
      derivs={"self": d("self", "result", rule="grad shared evenly by the elements equal to the max along dim")(
          _evenly_shared)})
defop("amin", "amin(Tensor input, int[1] dim=[], bool keepdim=False, *, Tensor? out=None)",
      _amax_forward(np.min, "amin"), node="AminBackward0", exposes=("dim", "keepdim"), contiguous=True,
      derivs={"self": d("self", "result", rule="grad shared evenly by the elements equal to the min along dim")(
          _evenly_shared)})


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
            return g * WHERE(x == x.mean(), math.nan, math.inf)
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


def _exposed_correction(s: dict) -> Any:
    # PyTorch binds a bare var() to the correction overload (None); the unbiased ones pass 1 or 0
    if "correction" in s:
        return s["correction"]
    return None if "dim" not in s and s.get("unbiased", True) else int(s.get("unbiased", True))


def exposed_dims(s: dict) -> Any:
    """A node's ``_saved_dim``: None, or the dims as PyTorch's int64 getter shows them (unsigned)."""
    dim = s.get("dim")
    if dim is None:
        return None
    return tuple(int(v) & ((1 << 64) - 1) for v in (dim if isinstance(dim, (list, tuple)) else (dim,)))


_VAR_EXPOSED = {"correction": _exposed_correction, "dim": exposed_dims,
                "keepdim": lambda s: bool(s.get("keepdim", False))}

_VAR_SIGS = ["{0}(Tensor input, bool unbiased=True)",
             "{0}(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor? out=None)",
             "{0}(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor? out=None)"]
defop("var", [s.format("var") for s in _VAR_SIGS], _var_forward(False), node="VarBackward0", contiguous=True,
      exposed_values=_VAR_EXPOSED,
      derivs={"self": d("self", rule="grad * 2 * (self - mean) / (N - correction), N the count reduced")(
          _var_backward)})
defop("std", [s.format("std") for s in _VAR_SIGS], _var_forward(True), node="StdBackward0", contiguous=True,
      exposed_values=_VAR_EXPOSED,
      derivs={"self": d("self", "result",
                        rule="grad * (self - mean) / ((N - correction) * result), 0 where result == 0")(_std_backward)})



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
    if not is_expandable_to(shape, self.shape):
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


CATALOG.register(sum_to_size, "sum_to_size", method=True, sigs="sum_to_size(Tensor input, int[] size)")


