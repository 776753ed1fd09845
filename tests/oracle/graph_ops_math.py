"""Random steps for the math ops gradcli supports: pointwise, reductions, linear algebra.

Each ``gen_*`` function draws one step (or None when nothing fits) from the
values built so far.  Operands mostly fit; sometimes they do not, and the
error is part of what gets compared.  Fragility checks (see graph_gen) skip
steps whose result would depend on the last bits of an inexact operand.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from graph_gen import Gen, torch
from graph_program import Const, DType, Ref, Step

# Ops whose float result is bit-identical in both libraries when the operands are exact
# (correctly rounded, or sums of grid values).  Everything else makes an inexact value.
EXACT = {
    "add", "sub", "mul", "neg", "abs", "square", "floor", "ceil", "round", "trunc", "frac", "sign",
    "relu", "clamp", "clip", "maximum", "minimum", "where", "div", "truediv", "floor_divide",
    "floordiv", "remainder", "mod", "pow", "reciprocal", "sqrt", "lerp", "sum", "mean", "prod",
    "cumsum", "cumprod", "max", "min", "amax", "amin", "matmul", "dot", "mv", "mm", "bmm", "outer",
    "trace", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow",
}


def _step(kind: str, name: str, args: tuple, kwargs: dict | None = None, target: Ref | None = None,
          op: str | None = None, g: Gen | None = None) -> Step:
    no_grad = g is not None and g.coin(0.35 if target is not None else 0.04)
    return Step(kind, name, args, kwargs or {}, no_grad=no_grad, target=target,
                exact_op=(op or name).rstrip("_") in EXACT)


# -- pointwise unary ---------------------------------------------------------------------------------

def _overflow(g: Gen, x: Ref) -> bool:
    a = g.inexact(x)
    if a is None:
        return False
    limit = 80.0 if g.value(x).dtype == torch.float32 else 700.0
    return bool(np.any(np.abs(a[np.isfinite(a)]) > limit))


def _tan_pole(g: Gen, x: Ref) -> bool:
    v = g.value(x)
    if not v.is_floating_point():
        return False
    a = v.detach().numpy().astype(np.float64)
    return bool(np.any(np.abs(np.cos(a[np.isfinite(a)])) < 1e-2))


UNARY: dict[str, Callable[[Gen, Ref], bool]] = {
    "exp": _overflow, "exp2": _overflow, "expm1": _overflow, "sinh": _overflow, "cosh": _overflow,
    "log": lambda g, x: g.near(x), "log2": lambda g, x: g.near(x), "log10": lambda g, x: g.near(x),
    "log1p": lambda g, x: g.near(x, (-1.0,)), "sqrt": lambda g, x: g.near(x),
    "rsqrt": lambda g, x: g.near(x), "reciprocal": lambda g, x: g.near(x),
    "sin": lambda g, x: False, "cos": lambda g, x: False, "tan": _tan_pole,
    "asin": lambda g, x: g.near(x, (1.0, -1.0)), "acos": lambda g, x: g.near(x, (1.0, -1.0)),
    "atan": lambda g, x: False, "tanh": lambda g, x: False, "sigmoid": lambda g, x: False,
    "erf": lambda g, x: False, "neg": lambda g, x: False, "square": lambda g, x: False,
    "abs": lambda g, x: g.near(x), "sign": lambda g, x: g.near(x), "relu": lambda g, x: g.near(x),
    "floor": lambda g, x: g.near_integer(x), "ceil": lambda g, x: g.near_integer(x),
    "trunc": lambda g, x: g.near_integer(x), "frac": lambda g, x: g.near_integer(x),
    "round": lambda g, x: g.near_integer(x, half=True),
    "isnan": lambda g, x: False, "isinf": lambda g, x: _overflow(g, x), "isfinite": lambda g, x: _overflow(g, x),
}
NO_INPLACE = {"isnan", "isinf", "isfinite"}


def gen_unary(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    name = g.choice(sorted(UNARY))
    if UNARY[name](g, x):
        return None
    forms = ["fn", "method"] + ([] if name in NO_INPLACE else ["inplace"])
    if name in ("neg", "abs"):
        forms.append("op")
    form = g.choice(forms)
    if name == "round" and g.coin(0.2):
        if g.near_integer(x, half=True, times=10.0):
            return None
        kw = {"decimals": 1}
        return _step("method", "round", (x,), kw, g=g) if form != "fn" else _step("fn", "round", (x,), kw, g=g)
    if form == "op":
        return _step("op", name, (x,), g=g)
    if form == "inplace":
        return _step("method", name + "_", (x,), target=x, g=g)
    return _step(form, name, (x,), g=g)


# -- pointwise binary --------------------------------------------------------------------------------

OPERATOR = {"add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "floor_divide": "floordiv",
            "remainder": "mod", "pow": "pow", "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt",
            "ge": "ge"}
AUGMENTED = {"add": "iadd", "sub": "isub", "mul": "imul", "div": "itruediv", "floor_divide": "ifloordiv",
             "remainder": "imod", "pow": "ipow"}
BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "atan2", "maximum", "minimum",
          "hypot", "eq", "ne", "lt", "le", "gt", "ge"]
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum"}


def _quotient_fragile(g: Gen, x: Any, y: Any, half: bool = False) -> bool:
    """x / y near an integer (floor/trunc division, remainder) when either is inexact."""
    if g.inexact(x) is None and g.inexact(y) is None:
        return False
    try:
        q = np.asarray(g._numbers(x), dtype=np.float64) / np.asarray(g._numbers(y), dtype=np.float64)
    except ValueError:
        return False
    q = q[np.isfinite(q)]
    return bool(np.any(np.abs(q - np.round(q)) <= 1e-3 * np.maximum(1.0, np.abs(q))))


def _signed_zero_tie(g: Gen, x: Any, y: Any) -> bool:
    """+0 against -0 in a tensor of 8 or more elements: PyTorch's vectorized maximum/minimum/clamp
    return the other operand there, its scalar loop (smaller tensors) this one; gradcli copies
    the scalar loop.  Excluded: which loop runs depends on PyTorch's TensorIterator."""
    try:
        a, b = np.broadcast_arrays(np.asarray(g._numbers(x), np.float64), np.asarray(g._numbers(y), np.float64))
    except ValueError:
        return False
    return a.size >= 8 and bool(np.any((a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))))


def _int_zero_divisor(g: Gen, x: Any, y: Any) -> bool:
    if not isinstance(x, Ref) or g.value(x).is_floating_point():
        return False
    return bool(np.any(np.asarray(g._numbers(y)) == 0))


def _binary_fragile(g: Gen, name: str, x: Any, y: Any) -> bool:
    if name in ("maximum", "minimum") and _signed_zero_tie(g, x, y):
        return True
    if name in COMPARISONS:
        return g.near_tie(x, y)
    if name == "div":
        return g.near(y)
    if name in ("floor_divide", "remainder"):
        return g.near(y) or _quotient_fragile(g, x, y)
    if name == "div" and isinstance(x, Ref) and not g.value(x).is_floating_point():
        return False
    if name == "pow":
        if g.near(x):
            return True
        if g.inexact(y) is not None:  # a negative base to an inexact power: nan or not
            return bool(np.any(g._numbers(x) <= 0))
        return _overflow(g, x) if isinstance(x, Ref) else False
    if name in ("atan2", "hypot"):
        return g.near(x) or g.near(y)
    return False


def gen_binary(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    name = g.choice(BINARY)
    y = g.operand(g.value(x), scalars=name not in ("atan2", "hypot", "maximum", "minimum") or g.coin(0.1))
    form = g.choice(["op", "op", "fn", "method", "inplace", "aug", "reflected"])
    if name not in OPERATOR and form in ("op", "aug", "reflected"):
        form = "fn"
    if name in ("maximum", "minimum") and form == "inplace":
        form = "method"
    if name in COMPARISONS - {"maximum", "minimum"} and form == "aug":
        form = "op"
    if form == "reflected" and not isinstance(y, (int, float)):
        form = "op"
    if form == "reflected":
        if _binary_fragile(g, name, y, x):
            return None
        if name == "pow" and isinstance(y, bool) and g.value(x).requires_grad:
            # PyTorch's own bug: PowBackward2 with a bool base fails an internal assert
            # ("unknown ivalue tag 4"); gradcli computes the gradient.
            return None
        return _step("op", OPERATOR[name], (y, x), op=name, g=g)
    if _binary_fragile(g, name, x, y):
        return None
    kwargs: dict = {}
    if name in ("add", "sub") and form in ("fn", "method", "inplace") and g.coin(0.25):
        kwargs["alpha"] = g.choice([2, -1, 0.5])
    if name == "div" and form in ("fn", "method", "inplace") and g.coin(0.3):
        mode = g.choice(["trunc", "floor", None])
        if mode is not None and _quotient_fragile(g, x, y):
            return None
        kwargs["rounding_mode"] = mode
    if form == "op":
        return _step("op", OPERATOR[name], (x, y), op=name, g=g)
    if form in ("aug", "inplace") and name in ("floor_divide", "remainder", "div") and _int_zero_divisor(g, x, y):
        # PyTorch's integer kernel raises ZeroDivisionError mid-way, after writing the elements
        # before the zero; gradcli raises before writing.  (Out of place both just raise.)
        return None
    if form == "aug":
        return _step("op", AUGMENTED[name], (x, y), target=x, g=g)
    if form == "inplace":
        return _step("method", name + "_", (x, y), kwargs, target=x, g=g)
    if form == "method":
        return _step("method", name, (x, y), kwargs, g=g)
    if isinstance(y, (int, float)) and g.coin(0.5):
        if name == "pow" and isinstance(y, bool) and g.value(x).requires_grad:
            return None  # PyTorch's PowBackward2 bug with a bool base, as above
        return _step("fn", name, (y, x), kwargs, g=g)  # torch.add(2, x) is allowed for some ops
    return _step("fn", name, (x, y), kwargs, g=g)


def gen_where(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    shape = tuple(g.value(x).shape)
    cond = g.pick(lambda t: t.dtype == torch.bool and _fits(tuple(t.shape), shape))
    if cond is None or g.coin(0.3):
        cond = Const(g.array(g.broadcastable(shape), "bool"))
    y = g.operand(g.value(x))
    if g.coin(0.2):
        x, y = g.scalar("float"), x  # a scalar first branch
    if g.coin(0.3) and isinstance(x, Ref):
        return _step("method", "where", (x, cond, y), g=g)
    return _step("fn", "where", (cond, x, y), g=g)


def gen_clamp(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    kind = g.choice(["both", "min", "max", "tensor_min", "tensor_max", "tensors", "none"])
    kw: dict = {}
    if kind in ("both", "min"):
        kw["min"] = g.choice([-1.0, 0.0, 0.5, -2, 1])
    if kind in ("both", "max"):
        kw["max"] = g.choice([1.0, 0.0, 2.5, -1, 3])
    if kind in ("tensor_min", "tensors"):
        kw["min"] = g.operand(g.value(x), scalars=False)
    if kind in ("tensor_max", "tensors"):
        kw["max"] = g.operand(g.value(x), scalars=False)
    for bound in kw.values():
        if g.near_tie(x, bound) or not isinstance(bound, (int, float)) and _signed_zero_tie(g, x, bound):
            return None
    name = g.choice(["clamp", "clamp", "clip"])
    form = g.choice(["fn", "method", "inplace"])
    if form == "inplace":
        return _step("method", name + "_", (x,), kw, target=x, g=g)
    if form == "fn" and kw and g.coin(0.3) and kind == "both":
        return _step("fn", name, (x, kw["min"], kw["max"]), g=g)
    return _step(form, name, (x,), kw, g=g)


def gen_lerp(g: Gen) -> Step | None:
    x = g.pick(lambda t: t.is_floating_point())
    if x is None:
        return None
    end = g.operand(g.value(x), scalars=False)
    weight = g.choice([0.25, 0.5, 0.75, 2.0]) if g.coin(0.6) else g.operand(g.value(x), scalars=False)
    if g.coin(0.3):
        return _step("method", "lerp_", (x, end, weight), target=x, g=g)
    return _step(g.choice(["fn", "method"]), "lerp", (x, end, weight), g=g)


# -- reductions ------------------------------------------------------------------------------------

def _dim_arg(g: Gen, ndim: int, tuples: bool = True) -> Any:
    if tuples and g.coin(0.3):
        return g.dims(ndim)
    return g.dim(ndim)


def _as_tuple(dim: Any) -> tuple | None:
    if dim is None:
        return None
    return (dim,) if isinstance(dim, int) else tuple(dim)


def _safe_dims(dims: tuple | None, ndim: int) -> tuple | None:
    if dims is None:
        return None
    if any(not -max(ndim, 1) <= d < max(ndim, 1) for d in dims):
        return None
    return dims if ndim else None


def gen_reduction(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    v = g.value(x)
    nd = v.ndim
    name = g.choice(["sum", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "std",
                     "var", "norm", "logsumexp", "any", "all"])
    form = g.choice(["method", "fn"])
    args: tuple = (x,)
    kw: dict = {}
    with_dim = g.coin(0.6)
    dims: tuple | None = None
    if name in ("sum", "mean", "amax", "amin", "any", "all", "std", "var", "logsumexp") and with_dim or \
            name == "logsumexp":
        dim = _dim_arg(g, nd, tuples=name not in ("any", "all") or g.coin(0.2))
        args = (x, dim)
        dims = _as_tuple(dim)
        if g.coin(0.4):
            kw["keepdim"] = g.coin(0.5)
    elif name in ("prod", "max", "min", "argmax", "argmin") and with_dim:
        dim = g.dim(nd)
        args, dims = (x, dim), (dim,)
        if g.coin(0.4):
            kw["keepdim"] = g.coin(0.5)
    if name == "sum" and g.coin(0.1):
        kw["dtype"] = DType(g.choice(["float64", "float32", "int64"]))
    if name in ("std", "var") and g.coin(0.4):
        if g.coin(0.5):
            kw["correction"] = g.choice([0, 1, 2])
        elif len(args) == 2:
            kw["unbiased"] = g.coin(0.5)
    if name == "norm":
        p = g.choice([2, 1, float("inf"), 3, "fro", 0])
        args = (x, p)
        if with_dim:
            dim = _dim_arg(g, nd)
            args, dims = (x, p, dim), _as_tuple(dim)
            if g.coin(0.4):
                kw["keepdim"] = g.coin(0.5)
        if p in (1, 0) and g.near(x):
            return None
        if p == float("inf") and g.near_tie_along(x, _safe_dims(dims, nd), absolute=True):
            return None
    if name in ("max", "min", "amax", "amin", "argmax", "argmin") and g.near_tie_along(x, _safe_dims(dims, nd)):
        return None
    if name in ("max", "min", "amax", "amin", "norm") and _both_zero_signs(g, x):
        # which of +0 and -0 a reduction keeps depends on PyTorch's vectorized reduction order
        return None
    if name in ("std", "var") and _nearly_constant(g, x, _safe_dims(dims, nd)):
        return None
    if name in ("any", "all") and g.near(x):
        return None
    exact = name in EXACT
    step = _step(form, name, args, kw, g=g)
    step.exact_op = exact
    return step


def _both_zero_signs(g: Gen, x: Ref) -> bool:
    a = g.value(x).detach().numpy()
    if a.dtype.kind != "f":
        return False
    zeros = a[a == 0]
    return bool(np.any(np.signbit(zeros)) and not np.all(np.signbit(zeros)))


def _nearly_constant(g: Gen, x: Ref, dims: tuple | None) -> bool:
    a = g.inexact(x)
    if a is None or a.size == 0:
        return False
    axes = None if dims is None or a.ndim == 0 else tuple(d % a.ndim for d in dims)
    if axes is not None and any(a.shape[d] == 0 for d in axes):
        return False
    with np.errstate(all="ignore"):
        spread = np.std(a.astype(np.float64), axis=axes)
    return bool(np.any(spread < 1e-2))


def gen_scan(g: Gen) -> Step | None:
    """cumsum, cumprod, softmax, log_softmax: one dim, the same shape out."""
    x = g.pick()
    if x is None:
        return None
    name = g.choice(["cumsum", "cumprod", "softmax", "log_softmax"])
    dim = g.dim(g.value(x).ndim)
    kw: dict = {}
    if g.coin(0.15):
        kw["dtype"] = DType(g.choice(["float64", "float32"]))
    if name.startswith("cum") and g.coin(0.15):
        return _step("method", name + "_", (x, dim), kw, target=x, g=g)
    return _step(g.choice(["fn", "method"]), name, (x, dim), kw, g=g)


def gen_compare_all(g: Gen) -> Step | None:
    """allclose / equal: Python bools."""
    x = g.pick()
    if x is None:
        return None
    y = g.operand(g.value(x), scalars=False)
    if g.inexact(x) is not None or g.inexact(y) is not None:
        return None
    name = g.choice(["allclose", "equal"])
    return _step(g.choice(["fn", "method"]), name, (x, y), g=g)


# -- linear algebra ----------------------------------------------------------------------------------

def _matmul_partner(g: Gen, x: Any, left: bool) -> Any:
    """An operand that fits ``x @ y`` (or ``y @ x`` when ``left``), most of the time."""
    s = tuple(x.shape)
    k = (s[-2] if len(s) >= 2 else s[0]) if left else s[-1]
    want_nd = g.choice([1, 2, 2, 3])
    if len(s) >= 3 and g.coin(0.5):
        batch = (g.choice([s[-3], 1]),)
    else:
        batch = (g.integer(1, 3),)
    m = g.integer(1, 3)
    if g.coin(0.05):
        k += 1  # a mismatch
    if left:
        shape = {1: (k,), 2: (m, k), 3: batch + (m, k)}[want_nd]
    else:
        shape = {1: (k,), 2: (k, m), 3: batch + (k, m)}[want_nd]
    fits = g.pick(lambda t: tuple(t.shape) == shape and t.dtype == x.dtype)
    if fits is not None and g.coin(0.7):
        return fits
    dtype = str(x.dtype).replace("torch.", "") if g.coin(0.92) else g.choice(["float64", "float32", "int64"])
    return g.const(shape, dtype)


def gen_matmul(g: Gen) -> Step | None:
    x = g.pick(lambda t: t.ndim >= 1 and t.ndim <= 4)
    if x is None:
        return None
    v = g.value(x)
    form = g.choice(["@", "@", "matmul", "method", "mm", "mv", "bmm", "dot", "outer", "rmatmul"])
    left = form == "rmatmul"
    y = _matmul_partner(g, v, left)
    if form in ("@", "rmatmul"):
        return _step("op", "matmul", (y, x) if left else (x, y), g=g)
    if form == "method":
        return _step("method", "matmul", (x, y), g=g)
    return _step("fn", form, (x, y), g=g)


def gen_transpose(g: Gen) -> Step | None:
    x = g.pick()
    if x is None:
        return None
    nd = g.value(x).ndim
    form = g.choice(["t", "t_fn", "T", "mT", "transpose", "trace", "diag"])
    if form == "t":
        return _step("method", "t", (x,), g=g)
    if form == "t_fn":
        return _step("fn", "t", (x,), g=g)
    if form in ("T", "mT"):
        return _step("attr", form, (x,), g=g)
    if form == "transpose":
        return _step(g.choice(["method", "fn"]), "transpose", (x, g.dim(nd), g.dim(nd)), g=g)
    if form == "trace":
        return _step(g.choice(["method", "fn"]), "trace", (x,), g=g)
    return _step(g.choice(["method", "fn"]), "diag", (x, g.choice([0, 0, 1, -1])), g=g)


def _lu_is_exact(a: np.ndarray) -> bool:
    """Whether LU with partial pivoting has only small dyadic factors for every matrix of ``a``.

    Then every LAPACK variant (blocked, recursive, with or without FMA) computes the same
    pivots without rounding, and a singular matrix is singular in both libraries; otherwise
    the last bits decide whether a pivot is exactly zero (MKL and OpenBLAS differ).
    """
    from fractions import Fraction
    n = a.shape[-1]
    for mat in a.reshape((-1, n, n)):
        m = [[Fraction(float(v)) for v in row] for row in mat]
        for k in range(n):
            p = max(range(k, n), key=lambda r: abs(m[r][k]))
            if m[p][k] == 0:
                continue
            m[k], m[p] = m[p], m[k]
            for r in range(k + 1, n):
                m[r][k] /= m[k][k]
                for c in range(k + 1, n):
                    m[r][c] -= m[r][k] * m[k][c]
        if any(v.denominator & (v.denominator - 1) or v.denominator > 2 ** 12 or abs(v) > 2 ** 12
               for row in m for v in row):
            return False
    return True


def gen_det_inv(g: Gen) -> Step | None:
    x = g.pick(lambda t: t.ndim >= 2 and t.shape[-1] == t.shape[-2])
    if x is None:
        return None
    a = g.value(x).detach().numpy().astype(np.float64)
    if a.dtype.kind == "f" and a.size:
        with np.errstate(all="ignore"):
            if not np.all(np.isfinite(a)):
                return None
            cond = np.linalg.cond(a) if a.shape[-1] else 1.0
        singular = bool(np.any(np.linalg.det(a) == 0)) if a.shape[-1] else False
        # Exactly singular exact matrices are kept (an error to compare for inv); nearly
        # singular ones are not (the last bits decide).
        if np.any(cond > 1e3) and not (singular and g.is_exact(x) and _lu_is_exact(a)):
            return None
        if singular:
            name = "linalg.inv"  # det's gradient at a singular matrix: see the report
            return _step("fn", name, (x,), g=g)
    name = g.choice(["linalg.det", "linalg.inv", "det", "inverse"])
    if name == "inverse" or (name == "det" and g.coin(0.5)):
        return _step("method", name, (x,), g=g)
    return _step("fn", name, (x,), g=g)


def _fits(shape: tuple, like: tuple) -> bool:
    for a, b in zip(reversed(shape), reversed(like)):
        if a != b and a != 1 and b != 1:
            return False
    return True


TABLE: list[tuple[int, Callable[[Gen], Step | None]]] = [
    (14, gen_unary), (20, gen_binary), (5, gen_where), (5, gen_clamp), (2, gen_lerp),
    (12, gen_reduction), (5, gen_scan), (1, gen_compare_all), (8, gen_matmul), (4, gen_transpose),
    (2, gen_det_inv),
]
