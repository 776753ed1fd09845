"""Every differentiable op's gradient against central finite differences (float64).

Binary ops run over broadcasting shape pairs, so the summing of a broadcast
gradient back to its input's shape is checked too.  No PyTorch needed.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import api

T = api.TORCH
F = api.SUBMODULES["nn.functional"]
LINALG = api.SUBMODULES["linalg"]
RNG = np.random.default_rng(1234)
EPS = 1e-6


def random_input(shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape)


def check_gradients(fn, arrays, atol=1e-5, rtol=1e-4):
    """Compare d(sum(w * fn(*xs)))/dx_i from backward with central differences."""
    leaves = [T["tensor"](a.tolist(), dtype=T["float64"], requires_grad=True) for a in arrays]
    out = fn(*leaves)
    weights = RNG.uniform(0.5, 1.5, size=tuple(out.shape))
    w = T["tensor"](weights.tolist(), dtype=T["float64"])
    (out * w).sum().backward()
    for leaf, base in zip(leaves, arrays):
        numeric = np.zeros_like(base, dtype=np.float64)
        flat = numeric.reshape(-1)
        for k in range(base.size):
            plus, minus = base.copy().reshape(-1), base.copy().reshape(-1)
            plus[k] += EPS
            minus[k] -= EPS

            def value(vec):
                args = [T["tensor"]((vec.reshape(base.shape) if a is base else a).tolist(), dtype=T["float64"])
                        for a in arrays]
                return float((fn(*args)._data * weights).sum())
            flat[k] = (value(plus) - value(minus)) / (2 * EPS)
        analytic = np.zeros_like(base) if leaf.grad is None else leaf.grad._data
        np.testing.assert_allclose(analytic, numeric, atol=atol, rtol=rtol)


UNARY = {
    "exp": (lambda x: x.exp(), (-2, 2)), "log": (lambda x: x.log(), (0.5, 3)),
    "log2": (lambda x: T["log2"](x), (0.5, 3)), "log10": (lambda x: T["log10"](x), (0.5, 3)),
    "log1p": (lambda x: x.log1p(), (0.1, 3)), "expm1": (lambda x: x.expm1(), (-2, 2)),
    "exp2": (lambda x: T["exp2"](x), (-2, 2)), "sqrt": (lambda x: x.sqrt(), (0.5, 3)),
    "rsqrt": (lambda x: x.rsqrt(), (0.5, 3)), "square": (lambda x: x.square(), (-2, 2)),
    "abs": (lambda x: x.abs(), (0.2, 2)), "sin": (lambda x: x.sin(), (-2, 2)),
    "cos": (lambda x: x.cos(), (-2, 2)), "tan": (lambda x: x.tan(), (-1, 1)),
    "asin": (lambda x: x.asin(), (-0.8, 0.8)), "acos": (lambda x: x.acos(), (-0.8, 0.8)),
    "atan": (lambda x: x.atan(), (-2, 2)), "sinh": (lambda x: x.sinh(), (-2, 2)),
    "cosh": (lambda x: x.cosh(), (-2, 2)), "tanh": (lambda x: x.tanh(), (-2, 2)),
    "sigmoid": (lambda x: x.sigmoid(), (-2, 2)), "relu": (lambda x: x.relu(), (0.1, 2)),
    "erf": (lambda x: T["erf"](x), (-2, 2)), "reciprocal": (lambda x: x.reciprocal(), (0.5, 2)),
    "neg": (lambda x: -x, (-2, 2)), "frac": (lambda x: T["frac"](x), (0.1, 0.9)),
    "pow_scalar": (lambda x: x ** 3, (-2, 2)), "pow_base": (lambda x: 2 ** x, (-2, 2)),
    "rdiv": (lambda x: 3 / x, (0.5, 2)), "rsub": (lambda x: 1 - x, (-2, 2)),
    "clamp": (lambda x: x.clamp(-1, 1), (-2, 2)), "sum": (lambda x: x.sum(), (-2, 2)),
    "mean": (lambda x: x.mean(), (-2, 2)), "prod": (lambda x: x.prod(), (0.5, 2)),
    "std": (lambda x: x.std(), (-2, 2)), "var": (lambda x: x.var(), (-2, 2)),
    "norm": (lambda x: x.norm(), (-2, 2)), "logsumexp": (lambda x: x.logsumexp(0), (-2, 2)),
    "cumsum": (lambda x: x.cumsum(0), (-2, 2)), "cumprod": (lambda x: x.cumprod(0), (0.5, 2)),
    "softmax": (lambda x: x.softmax(0), (-2, 2)), "log_softmax": (lambda x: x.log_softmax(0), (-2, 2)),
    "max": (lambda x: x.max(), (-2, 2)), "amax": (lambda x: x.amax(0), (-2, 2)),
    "flip": (lambda x: x.flip(0), (-2, 2)), "repeat": (lambda x: x.repeat(2), (-2, 2)),
    "index": (lambda x: x[T["tensor"]([0, 2, 2])], (-2, 2)),
    "slice": (lambda x: x[1:3], (-2, 2)), "select": (lambda x: x[1], (-2, 2)),
    "softplus": (lambda x: F["softplus"](x), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    fn, (low, high) = UNARY[name]
    check_gradients(fn, [random_input((4,), low, high)])


BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b.abs() + 1), "pow": lambda a, b: (a.abs() + 0.5) ** b,
    "atan2": lambda a, b: T["atan2"](a, b.abs() + 0.5), "hypot": lambda a, b: T["hypot"](a, b.abs() + 0.5),
    "maximum": lambda a, b: T["maximum"](a, b), "minimum": lambda a, b: T["minimum"](a, b),
    "where": lambda a, b: T["where"](a > 0, a, b), "lerp": lambda a, b: T["lerp"](a, b, 0.3),
    "add_alpha": lambda a, b: T["add"](a, b, alpha=2.5),
}
SHAPES = [((), (4,)), ((4,), (4,)), ((3, 4), (1, 4)), ((3, 1), (4,))]


@pytest.mark.parametrize("shapes", SHAPES, ids=[f"{a}-{b}" for a, b in SHAPES])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting(name, shapes):
    check_gradients(BINARY[name], [random_input(shapes[0]), random_input(shapes[1])])


MATRIX = {
    "mm": (lambda a, b: a @ b, [(2, 3), (3, 4)]),
    "mv": (lambda a, b: a @ b, [(2, 3), (3,)]),
    "vm": (lambda a, b: a @ b, [(3,), (3, 2)]),
    "dot": (lambda a, b: a @ b, [(3,), (3,)]),
    "bmm": (lambda a, b: a @ b, [(2, 2, 3), (2, 3, 2)]),
    "batched_broadcast": (lambda a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)]),
    "fold": (lambda a, b: a @ b, [(2, 2, 3), (3, 2)]),
    "outer": (lambda a, b: T["outer"](a, b), [(3,), (2,)]),
    "det": (lambda a: LINALG["det"](a), [(3, 3)]),
    "inv": (lambda a: LINALG["inv"](a), [(3, 3)]),
    "trace": (lambda a: T["trace"](a), [(3, 3)]),
    "diag": (lambda a: T["diag"](a), [(3, 3)]),
    "tril": (lambda a: a.tril(), [(3, 3)]),
    "transpose": (lambda a: a.t(), [(2, 3)]),
    "permute": (lambda a: a.permute(2, 0, 1), [(2, 3, 2)]),
    "expand": (lambda a: a.expand(2, 3, 4), [(3, 1)]),
    "cat": (lambda a, b: T["cat"]([a, b], 1), [(2, 3), (2, 2)]),
    "stack": (lambda a, b: T["stack"]([a, b], 0), [(2, 3), (2, 3)]),
    "gather": (lambda a: a.gather(1, T["tensor"]([[0, 0], [2, 1]])), [(2, 3)]),
    "index_select": (lambda a: a.index_select(1, T["tensor"]([2, 0, 2])), [(2, 3)]),
    "sum_dim": (lambda a: a.sum(1, keepdim=True), [(2, 3)]),
    "mean_dims": (lambda a: a.mean((0, 2)), [(2, 3, 2)]),
    "max_dim": (lambda a: a.max(1).values, [(2, 3)]),
    "std_dim": (lambda a: a.std(0), [(3, 2)]),
    "norm_dim": (lambda a: a.norm(dim=1), [(2, 3)]),
    "reshape_t": (lambda a: a.t().reshape(6), [(2, 3)]),
    "masked": (lambda a: a[a > 0], [(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_matrix_and_shape_ops(name):
    fn, shapes = MATRIX[name]
    arrays = [random_input(s) for s in shapes]
    if name in ("det", "inv"):
        arrays = [arrays[0] + 3 * np.eye(3)]  # well conditioned
    check_gradients(fn, arrays)
