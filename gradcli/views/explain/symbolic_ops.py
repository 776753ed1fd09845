"""The symbolic form of each op, keyed by the op record's name (``origin.op``).

Each form maps the op's bound arguments to its result over NumPy object arrays of SymPy
expressions: a tensor argument is an object array (a bool or integer one, such as a mask or an
index, stays a plain NumPy array), any other argument is the value the op got.  A form returns
one array, or a tuple for an op of several outputs (``split``, ``max(dim=...)``).

The forms give PyTorch's derivative at the points where an op is not smooth, where that is a
choice: ``relu``'s gradient at 0 is 0 (``x·[x > 0]``), ``maximum``'s at a tie is 1/2 for each side,
``clamp``'s at a bound is 1, ``hardtanh``'s at a bound 0; the steps (``floor``, ``sign``, ...)
have gradient 0.  Conditionals are Iverson brackets (``symbolic_functions.greater``), whose
derivative is 0, not SymPy's Piecewise.

``pointwise`` marks forms that act element by element on every tensor argument: the equations
write those over one generic element (``z = 3·y²``); the others are written as calls
(``mean(z)``) by their ``show``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
import sympy as sp

from . import symbolic_functions as fn
from .symbolic_base import (Args, NoSymbolicForm, SymbolicOp, axes_of, each, number, obj,
                            pointwise_form as _pw, reduce_axes as _reduce)
from .symbolic_activations import _activations
from .symbolic_losses import _bce, _bce_logits, _embedding, _mse, _nll, _smooth_l1
from .symbolic_shows import (_atom, _call, _infix, _method, _show_addmm, _show_list, _show_loss, _show_norm,
                             _show_slice, _subscript)

__all__ = ["TABLE", "NoSymbolicForm", "SymbolicOp", "obj", "pointwise_op_names", "POINTWISE_FAMILIES"]

# The op families whose ops all act element by element (gradcli/engine/install.py publishes them).
POINTWISE_FAMILIES = ("pointwise_unary", "arithmetic", "pointwise_binary", "fused_pointwise", "activations")


# -- pointwise: one tensor -------------------------------------------------------------------------

gt, ge = fn.greater, fn.at_least   # [a > b], [a ≥ b]


def _relu(x: Any) -> Any:
    return x * gt(x, 0)


def _logit(b: Args) -> np.ndarray:
    eps = b.get("eps")
    if eps is None:
        return each(lambda x: sp.log(x / (1 - x)), b["self"])
    e = number(eps)
    return each(lambda x: sp.log(_clip(x, e, 1 - e) / (1 - _clip(x, e, 1 - e))), b["self"])


def _clip(x: Any, low: Any, high: Any) -> Any:
    return low * gt(low, x) + high * gt(x, high) + x * ge(x, low) * ge(high, x)


def _round(b: Args) -> np.ndarray:
    decimals = sp.Integer(int(b.get("decimals", 0) or 0))
    return each(lambda x: fn.round_half_even(x, decimals), b["self"])


UNARY: dict[str, Callable[[Any], Any]] = {
    "exp": sp.exp, "exp2": lambda x: 2 ** x, "expm1": lambda x: sp.exp(x) - 1,
    "log": sp.log, "log2": lambda x: sp.log(x, 2), "log10": lambda x: sp.log(x, 10),
    "log1p": lambda x: sp.log(1 + x), "sqrt": sp.sqrt, "rsqrt": lambda x: 1 / sp.sqrt(x),
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "sigmoid": fn.sigmoid, "erf": sp.erf,
    "reciprocal": lambda x: 1 / x, "neg": lambda x: -x, "abs": fn.absolute, "sign": fn.sign, "sgn": fn.sign,
    "floor": fn.floor, "ceil": fn.ceil, "trunc": fn.trunc, "frac": lambda x: x - fn.trunc(x),
    "relu": _relu, "square": lambda x: x ** 2,
}


# -- pointwise: arithmetic and binary ------------------------------------------------------------

def _alpha(b: Args) -> Any:
    return number(b.get("alpha", 1))


def _div(b: Args) -> np.ndarray:
    mode = b.get("rounding_mode")
    if mode == "floor":
        return each(lambda x, y: fn.floor(x / y), b["self"], b["other"])
    if mode == "trunc":
        return each(lambda x, y: fn.trunc(x / y), b["self"], b["other"])
    return each(lambda x, y: x / y, b["self"], b["other"])


def _maximum(x: Any, y: Any) -> Any:
    # PyTorch splits the gradient at a tie: half to each side
    return x * gt(x, y) + y * gt(y, x) + (x + y) / 2 * ge(x, y) * ge(y, x)


def _minimum(x: Any, y: Any) -> Any:
    return x * gt(y, x) + y * gt(x, y) + (x + y) / 2 * ge(x, y) * ge(y, x)


def _clamp(b: Args) -> np.ndarray:
    low, high = b.get("min"), b.get("max")
    if low is None and high is None:
        raise NoSymbolicForm("clamp without min or max")
    if low is None:
        return each(_clamp_max, b["self"], high)
    if high is None:
        return each(_clamp_min, b["self"], low)
    # min > max gives max; otherwise the input, held in [min, max] (its gradient 1 on the bounds)
    return each(lambda x, lo, h: h * gt(lo, h) + ge(h, lo) * (lo * gt(lo, x) + h * gt(x, h) + x * ge(x, lo) * ge(h, x)),
                b["self"], low, high)


def _clamp_min(x: Any, low: Any) -> Any:
    return low * gt(low, x) + x * ge(x, low)


def _clamp_max(x: Any, high: Any) -> Any:
    return high * gt(x, high) + x * ge(high, x)


def _scalar_op(function: Callable) -> SymbolicOp:
    # the Scalar overloads PyTorch's C++ composites call: `other` is a number
    return SymbolicOp(lambda b: each(lambda x: function(x, number(b["other"])), b["self"]), pointwise=True)


# -- reductions --------------------------------------------------------------------------------------

def _count(a: np.ndarray, dim: Any) -> int:
    return math.prod(a.shape[d] for d in axes_of(dim, a.ndim)) if a.ndim else 1


def _sum(b: Args) -> np.ndarray:
    return _reduce(lambda x, y: x + y, b["self"], b.get("dim"), bool(b.get("keepdim")))


def _mean(b: Args) -> np.ndarray:
    return obj(_sum(b) / _count(b["self"], b.get("dim")))


def _prod(b: Args) -> np.ndarray:
    return _reduce(lambda x, y: x * y, b["self"], b.get("dim"), bool(b.get("keepdim")))


def _extreme(which: Callable, binary: Callable) -> Callable[[Args], Any]:
    def form(b: Args) -> Any:
        if b.get("other") is not None:
            return each(binary, b["self"], b["other"])
        if "dim" not in b:
            return obj(which(*b["self"].reshape(-1)))
        values = _reduce(which, b["self"], b["dim"], bool(b.get("keepdim")))
        return (values, None)   # (the indices are no graph output)
    return form


def _amax(which: Callable) -> Callable[[Args], np.ndarray]:
    return lambda b: _reduce(which, b["self"], b.get("dim"), bool(b.get("keepdim")))


def _correction(b: Args) -> Any:
    if b.get("correction") is not None:
        return number(b["correction"])
    return sp.Integer(1 if b.get("unbiased", True) else 0)


def _var(b: Args) -> np.ndarray:
    a, dim, keep = b["self"], b.get("dim"), bool(b.get("keepdim"))
    n = _count(a, dim)
    mean = _reduce(lambda x, y: x + y, a, dim, True) / n
    squares = _reduce(lambda x, y: x + y, obj((a - mean) ** 2), dim, keep)
    return obj(squares / (n - _correction(b)))


def _logsumexp(b: Args) -> np.ndarray:
    exps = each(sp.exp, b["self"])
    return each(sp.log, _reduce(lambda x, y: x + y, exps, b.get("dim"), bool(b.get("keepdim"))))


def _softmax(b: Args, log: bool) -> np.ndarray:
    a, dim = b["self"], b["dim"]
    exps = each(sp.exp, a)
    total = _reduce(lambda x, y: x + y, exps, dim, True)
    if log:
        return obj(a - each(sp.log, total))
    return obj(exps / total)


def _cumulative(function: Callable) -> Callable[[Args], np.ndarray]:
    def form(b: Args) -> np.ndarray:
        a = b["self"]
        if a.ndim == 0:
            return a
        return obj(np.frompyfunc(function, 2, 1).accumulate(a, axis=b["dim"] % a.ndim))
    return form


def _norm(b: Args) -> np.ndarray:
    p, dim, keep = b.get("p", 2), b.get("dim"), bool(b.get("keepdim"))
    a = b["self"]
    add = lambda x, y: x + y  # noqa: E731
    if p in ("fro", 2, 2.0):
        return each(sp.sqrt, _reduce(add, each(lambda x: x ** 2, a), dim, keep))
    if p in (1, 1.0):
        return _reduce(add, each(fn.absolute, a), dim, keep)
    if p in (math.inf, -math.inf):
        return _reduce(sp.Max if p > 0 else sp.Min, each(fn.absolute, a), dim, keep)
    if isinstance(p, (int, float)) and p > 0:
        q = number(p)
        return each(lambda s: s ** (1 / q), _reduce(add, each(lambda x: fn.absolute(x) ** q, a), dim, keep))
    raise NoSymbolicForm(f"norm with p={p!r}")


# -- products of matrices ---------------------------------------------------------------------------

def _matmul(b: Args, x: str, y: str) -> np.ndarray:
    return obj(np.matmul(b[x], b[y]))


def _addmm(b: Args) -> np.ndarray:
    beta, alpha = number(b.get("beta", 1)), number(b.get("alpha", 1))
    return obj(beta * b["self"] + alpha * np.matmul(b["mat1"], b["mat2"]))


def _matrices(function: Callable[[Any], Any]) -> Callable[[Args], np.ndarray]:
    def form(b: Args) -> np.ndarray:
        a = b["A"]
        out = np.empty(a.shape[:-2] + (() if function is _det else a.shape[-2:]), dtype=object)
        for idx in np.ndindex(*a.shape[:-2]):
            value = function(sp.Matrix(a[idx].tolist()))
            out[idx] = value if function is _det else np.array(value.tolist(), dtype=object)
        return obj(out)
    return form


def _det(m: Any) -> Any:
    return m.det()


def _inv(m: Any) -> Any:
    return m.inv()


# -- shapes, joining, slicing, indexing --------------------------------------------------------------

def _squeeze(b: Args) -> np.ndarray:
    a = b["self"]
    dim = b.get("dim")
    if dim is None:
        return a.reshape(tuple(n for n in a.shape if n != 1))
    dims = {d % max(a.ndim, 1) for d in ((dim,) if isinstance(dim, int) else dim)} if a.ndim else set()
    return a.reshape(tuple(n for i, n in enumerate(a.shape) if not (i in dims and n == 1)))


def _expand(b: Args) -> np.ndarray:
    a, size = b["self"], tuple(b["size"])
    lead = len(size) - a.ndim
    shape = tuple(a.shape[i - lead] if n == -1 else n for i, n in enumerate(size))
    return np.broadcast_to(a, shape)


def _repeat(b: Args) -> np.ndarray:
    a, repeats = b["self"], tuple(b["repeats"])
    return np.tile(a.reshape((1,) * (len(repeats) - a.ndim) + a.shape), repeats)


def _transpose(b: Args, first: str, second: str) -> np.ndarray:
    a = b["self"]
    return np.swapaxes(a, b[first], b[second]) if a.ndim else a


def _t(b: Args) -> np.ndarray:
    a = b["self"]
    return a.T if a.ndim == 2 else a


def _split(b: Args) -> tuple:
    a, size, dim = b["self"], b["split_size"], b.get("dim", 0) % max(b["self"].ndim, 1)
    n = a.shape[dim]
    sizes = [size] * (n // size) + ([n % size] if n % size else []) if isinstance(size, int) else list(size)
    if isinstance(size, int) and n == 0:
        sizes = [0]
    cuts = np.cumsum(sizes)[:-1]
    return tuple(np.split(a, cuts, axis=dim))


def _unbind(b: Args) -> tuple:
    a, dim = b["self"], b.get("dim", 0) % b["self"].ndim
    return tuple(np.take(a, i, axis=dim) for i in range(a.shape[dim]))


def _slice(b: Args) -> np.ndarray:
    a, dim = b["self"], b.get("dim", 0) % b["self"].ndim
    index = [slice(None)] * a.ndim
    index[dim] = slice(b.get("start"), b.get("end"), b.get("step", 1))
    return a[tuple(index)]


def _select(b: Args) -> np.ndarray:
    a, dim = b["self"], b["dim"] % b["self"].ndim
    return obj(np.take(a, b["index"] % a.shape[dim], axis=dim))


def _triangle(keep: Callable) -> Callable[[Args], np.ndarray]:
    def form(b: Args) -> np.ndarray:
        a = b["self"]
        mask = keep(np.ones(a.shape[-2:], dtype=bool), b.get("diagonal", 0))
        return obj(np.where(mask, a, sp.Integer(0)))
    return form


def _diag_embed(b: Args) -> np.ndarray:
    a, offset = b["self"], b.get("offset", 0)
    if (b.get("dim1", -2), b.get("dim2", -1)) != (-2, -1):
        raise NoSymbolicForm("diag_embed with other dims than the last two")
    n = a.shape[-1] + abs(offset)
    out = np.full(a.shape[:-1] + (n, n), sp.Integer(0), dtype=object)
    for k in range(a.shape[-1]):
        row, col = (k, k + offset) if offset >= 0 else (k - offset, k)
        out[..., row, col] = a[..., k]
    return out


def _numpy_index(b: Args) -> tuple:
    from gradcli.engine.ops.indexing import _numpy_index as numpy_index
    return numpy_index(b["self"].shape, b["indices"])


def _index(b: Args) -> np.ndarray:
    return obj(b["self"][_numpy_index(b)])


def _index_put(b: Args) -> np.ndarray:
    out = b["self"].copy()
    index = _numpy_index(b)
    values = np.broadcast_to(b["values"], out[index].shape)
    if b.get("accumulate"):
        # repeated indices add up, as PyTorch's accumulate=True does
        np.add.at(out, index, values)
    else:
        out[index] = values
    return out


def _index_add(b: Args) -> np.ndarray:
    out, dim = b["self"].copy(), b["dim"] % max(b["self"].ndim, 1)
    alpha = number(b.get("alpha", 1))
    for k, i in enumerate(np.asarray(b["index"]).reshape(-1)):
        target = [slice(None)] * out.ndim
        target[dim] = int(i)
        source = np.take(b["source"], k, axis=dim) if b["source"].ndim else b["source"]
        out[tuple(target)] = out[tuple(target)] + alpha * source
    return out


def _scatter(b: Args, add: bool) -> np.ndarray:
    if b.get("reduce") is not None:
        raise NoSymbolicForm("scatter with reduce=")
    out, dim, index = b["self"].copy(), b["dim"] % max(b["self"].ndim, 1), np.asarray(b["index"])
    src = b.get("src")
    if src is None:
        src = obj(b["value"])
    src = np.broadcast_to(src, index.shape) if src.ndim == 0 else src
    for idx in np.ndindex(*index.shape):
        target = list(idx)
        target[dim] = int(index[idx])
        out[tuple(target)] = out[tuple(target)] + src[idx] if add else src[idx]
    return out


def _masked_select(b: Args) -> np.ndarray:
    a, mask = np.broadcast_arrays(b["self"], np.asarray(b["mask"]))
    return a[mask.astype(bool)]


def _pad(b: Args) -> np.ndarray:
    a, pad, value = b["self"], list(b["pad"]), number(b.get("value", 0) or 0)
    if any(p < 0 for p in pad):
        raise NoSymbolicForm("a negative pad (cropping)")
    widths = [(0, 0)] * a.ndim
    for k in range(len(pad) // 2):
        widths[a.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    return np.pad(a, widths, mode="constant", constant_values=value)


def _where(b: Args) -> np.ndarray:
    return obj(np.where(np.asarray(b["condition"]).astype(bool), b["self"], b["other"]))


def _masked_fill(b: Args) -> np.ndarray:
    return obj(np.where(np.asarray(b["mask"]).astype(bool), b["value"], b["self"]))


# -- the table ----------------------------------------------------------------------------------------------

def _table() -> dict[str, SymbolicOp]:
    table: dict[str, SymbolicOp] = {name: _pw(f) for name, f in UNARY.items()}
    table.update({
        "round": SymbolicOp(_round, True),
        "logit": SymbolicOp(_logit, True),
        "add": SymbolicOp(lambda b: each(lambda x, y: x + _alpha(b) * y, b["self"], b["other"]), True),
        "sub": SymbolicOp(lambda b: each(lambda x, y: x - _alpha(b) * y, b["self"], b["other"]), True),
        "rsub": SymbolicOp(lambda b: each(lambda x, y: y - _alpha(b) * x, b["self"], b["other"]), True),
        "mul": _pw(lambda x, y: x * y, "self", "other"),
        "div": SymbolicOp(_div, True),
        "floor_divide": _pw(lambda x, y: fn.floor(x / y), "self", "other"),
        "remainder": _pw(lambda x, y: x - fn.floor(x / y) * y, "self", "other"),
        "fmod": _pw(lambda x, y: x - fn.trunc(x / y) * y, "self", "other"),
        "pow": _pw(lambda x, y: x ** y, "self", "exponent"),
        "_mul_scalar": _scalar_op(lambda x, c: x * c), "_div_scalar": _scalar_op(lambda x, c: x / c),
        "_add_scalar": _scalar_op(lambda x, c: x + c), "_sub_scalar": _scalar_op(lambda x, c: x - c),
        "atan2": _pw(sp.atan2, "self", "other"),
        "hypot": _pw(lambda x, y: sp.sqrt(x ** 2 + y ** 2), "self", "other"),
        "maximum": _pw(_maximum, "self", "other"), "minimum": _pw(_minimum, "self", "other"),
        "lerp": _pw(lambda s, e, w: s + w * (e - s), "self", "end", "weight"),
        "clamp": SymbolicOp(_clamp, True), "clip": SymbolicOp(_clamp, True),
        "clamp_min": _pw(_clamp_min, "self", "min"),
        "xlogy": _pw(lambda x, y: x * sp.log(y), "self", "other"),
        "addcmul": SymbolicOp(lambda b: each(lambda s, p, q: s + number(b.get("value", 1)) * p * q,
                                             b["self"], b["tensor1"], b["tensor2"]), True),
        "addcdiv": SymbolicOp(lambda b: each(lambda s, p, q: s + number(b.get("value", 1)) * p / q,
                                             b["self"], b["tensor1"], b["tensor2"]), True),
        # the gradient ops a create_graph=True backward records
        "threshold_backward": SymbolicOp(lambda b: each(
            lambda g, x: g * gt(x, number(b["threshold"])), b["grad_output"], b["self"]), True),
        "sigmoid_backward": _pw(lambda g, y: g * (1 - y) * y, "grad_output", "self"),
        "tanh_backward": _pw(lambda g, y: g * (1 - y ** 2), "grad_output", "self"),
        # copies: the same values
        "clone": _pw(lambda x: x), "alias": _pw(lambda x: x), "_to_copy": _pw(lambda x: x),
        "copy": SymbolicOp(lambda b: obj(np.broadcast_to(b["src"], b["self"].shape)), True),
    })
    table.update(_activations())
    add, mul = (lambda x, y: x + y), (lambda x, y: x * y)
    reductions = {
        "sum": SymbolicOp(_sum, show=_call("sum", "dim", "keepdim")),
        "mean": SymbolicOp(_mean, show=_call("mean", "dim", "keepdim")),
        "prod": SymbolicOp(_prod, show=_call("prod", "dim", "keepdim")),
        "max": SymbolicOp(_extreme(sp.Max, _maximum), show=_call("max", "dim", "keepdim")),
        "min": SymbolicOp(_extreme(sp.Min, _minimum), show=_call("min", "dim", "keepdim")),
        "amax": SymbolicOp(_amax(sp.Max), show=_call("amax", "dim", "keepdim")),
        "amin": SymbolicOp(_amax(sp.Min), show=_call("amin", "dim", "keepdim")),
        "var": SymbolicOp(_var, show=_call("var", "dim", "correction", "keepdim")),
        "std": SymbolicOp(lambda b: each(sp.sqrt, _var(b)), show=_call("std", "dim", "correction", "keepdim")),
        "logsumexp": SymbolicOp(_logsumexp, show=_call("logsumexp", "dim", "keepdim")),
        "softmax": SymbolicOp(lambda b: _softmax(b, False), show=_call("softmax", "dim")),
        "log_softmax": SymbolicOp(lambda b: _softmax(b, True), show=_call("log_softmax", "dim")),
        "cumsum": SymbolicOp(_cumulative(add), show=_call("cumsum", "dim")),
        "cumprod": SymbolicOp(_cumulative(mul), show=_call("cumprod", "dim")),
        "_norm": SymbolicOp(_norm, show=_show_norm),
        "trace": SymbolicOp(lambda b: obj(np.trace(b["self"])), show=_call("trace")),
    }
    products = {
        "dot": SymbolicOp(lambda b: obj(np.dot(b["self"], b["tensor"])), show=_infix("@", "self", "tensor")),
        "mv": SymbolicOp(lambda b: _matmul(b, "self", "vec"), show=_infix("@", "self", "vec")),
        "mm": SymbolicOp(lambda b: _matmul(b, "self", "mat2"), show=_infix("@", "self", "mat2")),
        "bmm": SymbolicOp(lambda b: _matmul(b, "self", "mat2"), show=_infix("@", "self", "mat2")),
        "addmm": SymbolicOp(_addmm, show=_show_addmm),
        "_squeeze_dim": SymbolicOp(_squeeze, show=_method("squeeze", "dim")),
        "linalg.det": SymbolicOp(_matrices(_det), show=lambda b: f"det({b['A']})"),
        "linalg.inv": SymbolicOp(_matrices(_inv), show=lambda b: f"{_atom(b['A'])}⁻¹"),
    }
    shapes = {
        "view": SymbolicOp(lambda b: b["self"].reshape(tuple(b["size"])), show=_method("view", "size")),
        "_unsafe_view": SymbolicOp(lambda b: b["self"].reshape(tuple(b["size"])), show=_method("view", "size")),
        "_reshape_alias": SymbolicOp(lambda b: b["self"].reshape(tuple(b["size"])), show=_method("view", "size")),
        "squeeze": SymbolicOp(_squeeze, show=_method("squeeze", "dim")),
        "unsqueeze": SymbolicOp(lambda b: np.expand_dims(b["self"], b["dim"] % (b["self"].ndim + 1)),
                                show=_method("unsqueeze", "dim")),
        "permute": SymbolicOp(lambda b: np.transpose(b["self"], tuple(d % max(b["self"].ndim, 1) for d in b["dims"]))
                              if b["self"].ndim else b["self"], show=_method("permute", "dims")),
        "transpose": SymbolicOp(lambda b: _transpose(b, "dim0", "dim1"), show=_method("transpose", "dim0", "dim1")),
        "swapaxes": SymbolicOp(lambda b: _transpose(b, "axis0", "axis1"), show=_method("swapaxes", "axis0", "axis1")),
        "t": SymbolicOp(_t, show=lambda b: f"{_atom(b['self'])}ᵀ"),
        "expand": SymbolicOp(_expand, show=_method("expand", "size")),
        "repeat": SymbolicOp(_repeat, show=_method("repeat", "repeats")),
        "cat": SymbolicOp(lambda b: np.concatenate([t for t in b["tensors"] if t.ndim or len(b["tensors"]) == 1],
                                                   axis=b.get("dim", 0)), show=_show_list("cat")),
        "stack": SymbolicOp(lambda b: np.stack(b["tensors"], axis=b.get("dim", 0) % (b["tensors"][0].ndim + 1)),
                            show=_show_list("stack")),
        "split": SymbolicOp(_split, show=_method("split", "split_size", "dim")),
        "unbind": SymbolicOp(_unbind, show=_method("unbind", "dim")),
        "slice": SymbolicOp(_slice, show=_show_slice),
        "select": SymbolicOp(_select, show=lambda b: _subscript(b, str(b["index"]))),
        "diagonal": SymbolicOp(lambda b: np.diagonal(b["self"], b.get("offset", 0), b.get("dim1", 0), b.get("dim2", 1)),
                               show=_method("diagonal", "offset")),
        "_diagonal_copy": SymbolicOp(lambda b: np.diagonal(b["self"], b.get("offset", 0), -2, -1),
                                     show=_method("diagonal", "offset")),
        "flip": SymbolicOp(lambda b: np.flip(b["self"], axis=tuple(b["dims"])), show=_method("flip", "dims")),
        "tril": SymbolicOp(_triangle(np.tril), show=_call("tril", "diagonal")),
        "triu": SymbolicOp(_triangle(np.triu), show=_call("triu", "diagonal")),
        "diag_embed": SymbolicOp(_diag_embed, show=_call("diag_embed", "offset")),
        "index": SymbolicOp(_index, show=lambda b: f"{_atom(b['self'])}[…]"),
        "index_put": SymbolicOp(_index_put, show=_call("index_put", "accumulate")),
        "index_select": SymbolicOp(lambda b: obj(np.take(b["self"], np.asarray(b["index"]).astype(np.int64),
                                                         axis=b["dim"])), show=_call("index_select", "dim")),
        "index_add": SymbolicOp(_index_add, show=_call("index_add", "dim")),
        "gather": SymbolicOp(lambda b: obj(np.take_along_axis(b["self"], np.asarray(b["index"]).astype(np.int64),
                                                              axis=b["dim"])), show=_call("gather", "dim")),
        "scatter": SymbolicOp(lambda b: _scatter(b, False), show=_call("scatter", "dim")),
        "scatter_add": SymbolicOp(lambda b: _scatter(b, True), show=_call("scatter_add", "dim")),
        "masked_select": SymbolicOp(_masked_select, show=lambda b: f"{_atom(b['self'])}[mask]"),
        "take": SymbolicOp(lambda b: obj(b["self"].reshape(-1)[np.asarray(b["index"]).astype(np.int64)]),
                           show=_call("take")),
        "constant_pad_nd": SymbolicOp(_pad, show=_call("pad", "pad")),
        "where": SymbolicOp(_where, show=lambda b: f"where(condition, {b['self']}, {b['other']})"),
        "masked_fill": SymbolicOp(_masked_fill, show=lambda b: f"{_atom(b['self'])}.masked_fill(mask, {b['value']})"),
        "fill": SymbolicOp(lambda b: obj(np.broadcast_to(b["value"], b["self"].shape)),
                           show=lambda b: f"fill({b['value']})"),
        "zero": SymbolicOp(lambda b: obj(np.full(b["self"].shape, sp.Integer(0), dtype=object)),
                           show=lambda b: "0"),
        "embedding": SymbolicOp(_embedding, show=lambda b: f"{_atom(b['weight'])}[indices]"),
    }
    losses = {
        "mse_loss": SymbolicOp(_mse, show=_show_loss("mse_loss")),
        "smooth_l1_loss": SymbolicOp(lambda b: _smooth_l1(b, "beta", False), show=_show_loss("smooth_l1_loss")),
        "huber_loss": SymbolicOp(lambda b: _smooth_l1(b, "delta", True), show=_show_loss("huber_loss")),
        "binary_cross_entropy": SymbolicOp(_bce, show=_show_loss("binary_cross_entropy")),
        "binary_cross_entropy_with_logits": SymbolicOp(_bce_logits,
                                                       show=_show_loss("binary_cross_entropy_with_logits")),
        "nll_loss": SymbolicOp(_nll, show=_show_loss("nll_loss")),
    }
    for group in (reductions, products, shapes, losses):
        table.update(group)
    return table


TABLE: dict[str, SymbolicOp] = _table()


def pointwise_op_names(families: Sequence[str] = POINTWISE_FAMILIES) -> list[str]:
    """The names of the ops with a node in the pointwise families, in the order they are published."""
    from gradcli.engine import api, install   # (api publishes the ops)
    from gradcli.engine.dispatch.op import Op
    assert api.TORCH
    names = []
    for family in install.FAMILIES:
        if family.__name__.rsplit(".", 1)[-1] in families:
            names += [item.name for item, _, _ in family.CATALOG._entries if isinstance(item, Op) and item.node]
    return names
